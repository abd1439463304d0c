"""The retention advice as a terminal answer: one table per group, the bytes freed last."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from provgraph.query.recipes.plain_table import table

_KINDS = {"DatasetVersion": "dataset version", "Checkpoint": "checkpoint",
          "ModelVersion": "model version"}  # fmt: skip
_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def size_text(size: int | None) -> str:
    """`52428800` as `50.0 MiB`; None as `unknown`."""
    if size is None:
        return "unknown"
    value, unit = float(size), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    return f"{size} B" if unit == 0 else f"{value:.1f} {_UNITS[unit]}"


def _group(title: str, rows: Sequence[dict[str, Any]], header: list[str], cells: Any) -> list[str]:
    lines = ["", f"{title} ({len(rows)})"]
    if rows:
        lines.append(table(["node", "kind", *header], [cells(r) for r in rows]))
    return lines


def _kept(row: dict[str, Any]) -> list[Any]:
    why = "; ".join(r["text"] for r in row["reasons"])
    return [row["id"], _KINDS.get(row["kind"], row["kind"]), size_text(row["size_bytes"]), why]


def _deletable(row: dict[str, Any]) -> list[Any]:
    kind = _KINDS.get(row["kind"], row["kind"])
    return [row["id"], kind, size_text(row["frees_bytes"]), row["reason"]]


def _deleted(row: dict[str, Any]) -> list[Any]:
    kind = _KINDS.get(row["kind"], row["kind"])
    return [row["id"], kind, str(row["deleted_at"])[:10], row["reason"]]


def render_retention(answer: dict[str, Any]) -> str:
    """The advice for people: KEEP, DELETABLE and ALREADY DELETED, then the bytes freed."""
    lines = [
        f"Retention advice for {answer['project']} at {answer['now']} "
        f"(keep {answer['keep_after_retire']} after retirement)"
    ]
    lines += _group("KEEP", answer["keep"], ["size", "why"], _kept)
    lines += _group("DELETABLE", answer["deletable"], ["frees", "why"], _deletable)
    lines += _group("ALREADY DELETED", answer["already_deleted"], ["deleted", "reason"], _deleted)
    unknown = answer["sizes_unknown"]
    note = f"; {unknown} with no recorded size, not counted" if unknown else ""
    freed = answer["bytes_freed"]
    lines += ["", f"Deleting the {len(answer['deletable'])} deletable nodes frees "
              f"{size_text(freed)} ({freed} bytes){note}."]  # fmt: skip
    return "\n".join(lines)
