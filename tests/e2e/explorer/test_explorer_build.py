"""The explorer's performance marks are in the benchmark's build only.

`performance.mark('lineage-drawn')`, `performance.mark('expand-painted')` and the timings in
`window.__provgraphPerf` are compiled in where Vite's `benchmark` mode sets the build flag
`__PROVGRAPH_PERF__` (web/vite.config.ts, `npm run build:bench`, which the explorer benchmark
runs); the shipped build, the one the query service serves, holds none of their code.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from explorer_helpers import ROOT, UI_DIR

WEB = ROOT / "web"
# What only the marks' code spells: their names, and the timings object they fill.
PERF_CODE = ("lineage-drawn", "expand-painted", "__provgraphPerf", "lineageAnsweredMs")


def _perf_code_in(build: Path) -> dict[str, list[str]]:
    """Each of PERF_CODE found in the build's scripts, with the files it is in."""
    scripts = {p.name: p.read_text(encoding="utf-8") for p in (build / "assets").glob("*.js")}
    assert scripts, f"no scripts in {build / 'assets'}"
    return {code: sorted(n for n, text in scripts.items() if code in text) for code in PERF_CODE}


def test_the_shipped_build_holds_no_performance_marks() -> None:
    assert (UI_DIR / "index.html").is_file(), f"the explorer is not built in {UI_DIR}: `make ui`"
    found = _perf_code_in(UI_DIR)
    assert found == {code: [] for code in PERF_CODE}


def test_the_benchmark_build_holds_them(tmp_path: Path) -> None:
    assert (WEB / "node_modules").is_dir(), "the explorer's packages are missing: `make ui`"
    out = tmp_path / "explorer-bench"
    done = subprocess.run(
        ["npm", "run", "build:bench", "--", "--outDir", str(out), "--emptyOutDir"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    found = _perf_code_in(out)
    assert all(found.values()), found
