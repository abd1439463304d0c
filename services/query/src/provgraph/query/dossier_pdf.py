"""The dossier's PDF: its HTML page printed by headless Chromium (`QuerySettings.chromium_path`).

The page is written to a private temporary folder and printed from there with a profile of
its own (no header, no footer: the page's own `@media print` rules apply), so two prints at
once never share a browser. A Chromium that is missing, fails or takes longer than
`QuerySettings.pdf_timeout_s` is `pdf_unavailable`, saying what to install or set.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from provgraph.core.errors import UnavailableError
from provgraph.query.settings import QuerySettings

PDF_MAGIC = b"%PDF-"


class PdfUnavailableError(UnavailableError):
    """The PDF cannot be printed here: no Chromium, or it failed."""

    code = "pdf_unavailable"


def chromium(settings: QuerySettings) -> str:
    """The Chromium executable of `settings`; `pdf_unavailable` naming the setting when none."""
    found = shutil.which(settings.chromium_path)
    if found is None:
        raise PdfUnavailableError(
            f"Chromium was not found at {settings.chromium_path!r}: install it (Debian: "
            "apt-get install chromium) or set PROVGRAPH_CHROMIUM_PATH to its executable",
            chromium_path=settings.chromium_path,
        )
    return found


def print_pdf(page: str, settings: QuerySettings) -> bytes:
    """The HTML `page` printed to PDF by headless Chromium."""
    executable = chromium(settings)
    with tempfile.TemporaryDirectory(prefix="provgraph-dossier-") as folder:
        root = Path(folder)
        source, target = root / "dossier.html", root / "dossier.pdf"
        source.write_text(page, encoding="utf-8")
        argv = [
            executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-pdf-header-footer",
            f"--user-data-dir={root / 'profile'}",
            f"--print-to-pdf={target}",
            source.as_uri(),
        ]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=settings.pdf_timeout_s, check=False
            )
        except subprocess.TimeoutExpired:
            raise PdfUnavailableError(
                f"Chromium did not print the PDF within {settings.pdf_timeout_s:g} s"
            ) from None
        printed = target.read_bytes() if target.is_file() else b""
        if done.returncode != 0 or not printed.startswith(PDF_MAGIC):
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise PdfUnavailableError(
                f"Chromium failed to print the PDF (exit code {done.returncode})",
                cause=" ".join(tail),
            )
        return printed
