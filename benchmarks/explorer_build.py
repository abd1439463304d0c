"""The explorer as the benchmark measures it: built with its performance marks.

The shipped build (web/dist, `make ui`) has none: `performance.mark('lineage-drawn')`,
`performance.mark('expand-painted')` and `window.__provgraphPerf` are compiled in only where
Vite's `benchmark` mode sets `__PROVGRAPH_PERF__` (web/vite.config.ts). `npm run build:bench`
makes that build of the checkout's sources, here into a folder of the benchmark's own.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from benchmarks.pipeline import BenchmarkError

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
BENCH_UI_DIR = ROOT / ".build" / "explorer-bench"
BUILD_TIMEOUT_S = 600


def _npm(*args: str) -> None:
    done = subprocess.run(
        ["npm", *args], cwd=WEB, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S
    )
    if done.returncode != 0:
        why = (done.stdout + done.stderr)[-3000:]
        raise BenchmarkError(f"explorer: `npm {' '.join(args)}` failed in {WEB}:\n{why}")


def build_explorer(out_dir: Path = BENCH_UI_DIR) -> Path:
    """The benchmark build of the explorer in `out_dir`, from exactly the locked packages
    (`npm ci` first when web/node_modules is missing or older than the lock file)."""
    if not shutil.which("npm"):
        raise BenchmarkError("explorer: Node.js and npm are missing (Debian: apt-get install npm)")
    installed = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
        _npm("ci", "--no-audit", "--no-fund")
    _npm("run", "build:bench", "--", "--outDir", str(out_dir), "--emptyOutDir")
    return out_dir
