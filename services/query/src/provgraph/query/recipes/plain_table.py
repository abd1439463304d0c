"""A plain-text table for terminal answers: a header, a rule, one line per row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EMPTY = "-"
"""What an absent value prints as."""


def cell(value: Any) -> str:
    """A value as table text: None is `-`, booleans are yes/no, floats without noise."""
    if value is None:
        return EMPTY
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell, the last one left unpadded."""
    texts = [list(header), *[[cell(v) for v in row] for row in rows]]
    widths = [max(len(line[i]) for line in texts) for i in range(len(header))]

    def line(values: Sequence[str]) -> str:
        padded = [v.ljust(w) for v, w in zip(values[:-1], widths[:-1], strict=True)]
        return "  ".join([*padded, values[-1]]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(texts[0]), rule, *(line(t) for t in texts[1:])])
