"""`benchmarks/` is a top-level folder run as `python -m benchmarks`, not an installed package:
make it importable for its unit test."""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
