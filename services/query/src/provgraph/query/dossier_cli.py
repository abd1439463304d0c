"""`provgraph dossier MODEL_VERSION [--format markdown|html|pdf|json] [-o FILE]`: the model
dossier, one document (Markdown by default), written to FILE or printed.

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). The PDF is the HTML printed by headless Chromium
(PROVGRAPH_CHROMIUM_PATH, `chromium` on PATH by default). Exit codes: 0 written, 1 not found,
2 invalid argument or a setting missing or wrong (Chromium included).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from provgraph.core.commands import command
from provgraph.query.connect import command_services
from provgraph.query.dossier_pdf import print_pdf
from provgraph.query.read.model import Scope
from provgraph.query.recipes.dossier_render import render_html, render_markdown
from provgraph.query.settings import QuerySettings
from provgraph.query.terminal import not_found

FORMATS = ("markdown", "html", "pdf", "json")


def rendered(document: dict[str, Any], form: str, settings: QuerySettings) -> bytes:
    """The dossier in `form` (one of `FORMATS`), as the bytes of a file."""
    if form == "json":
        return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()
    if form == "markdown":
        return render_markdown(document).encode()
    page = render_html(document)
    return print_pdf(page, settings) if form == "pdf" else page.encode()


def _dossier(args: argparse.Namespace) -> int:
    with command_services() as services:
        document = services.dossiers().dossier(args.id, Scope.everything())
        if document is None:
            return not_found(f"Not found: {args.id}.")
        body = rendered(document, args.format, services.settings)
    if args.output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(body)
    else:
        Path(args.output).write_bytes(body)
        print(f"{args.format} dossier of {args.id} written to {args.output}", file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    """Add `dossier` to the `provgraph` parser."""
    p = command(sub, "dossier", _dossier, "the identity card of a model version: one document")
    p.add_argument("id", metavar="MODEL_VERSION", help="e.g. model:demo-llm/chat-1b@1.0.0")
    p.add_argument("--format", choices=FORMATS, default="markdown", help="default: markdown")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
