"""Render a `Lineage` as a tree for the terminal (`provgraph trace`): pure, no I/O.

Upstream follows outgoing edges (towards sources), downstream incoming ones. The graph is a
DAG, not a tree: each node is expanded once, under a parent on its shortest route from the
root, and marked `(repeated)` wherever else it appears.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView

_DETAIL_KEYS = ("name", "version", "step", "status")
# Edge properties worth showing next to the relationship type.
_EDGE_KEYS = ("role", "transform", "traffic_share")


def describe(node: NodeView) -> str:
    """`Type id (name version, status)` plus markers for placeholders and deleted nodes."""
    details = [
        f"step {value}" if key == "step" else str(value)
        for key in _DETAIL_KEYS
        if (value := node.props.get(key)) is not None
    ]
    text = f"{node.type} {node.id}"
    if details:
        text += f" ({' '.join(details)})"
    if node.placeholder:
        text += " [placeholder]"
    if node.deleted_at:
        text += f" [deleted {node.deleted_at}]"
    return text


def _edge_label(edge: EdgeView, direction: Direction) -> str:
    extra = [f"{k}={edge.props[k]}" for k in _EDGE_KEYS if edge.props.get(k) is not None]
    rel = edge.type + (f"[{', '.join(extra)}]" if extra else "")
    return f"{rel} →" if direction is Direction.UPSTREAM else f"← {rel}"


def _children(
    lineage: Lineage, direction: Direction
) -> Mapping[str, Sequence[tuple[EdgeView, str]]]:
    known = {n.id for n in lineage.nodes} | {lineage.root.id}
    out: dict[str, list[tuple[EdgeView, str]]] = {}
    for edge in lineage.edges:
        parent, child = (
            (edge.src, edge.dst) if direction is Direction.UPSTREAM else (edge.dst, edge.src)
        )
        if parent in known and child in known:
            out.setdefault(parent, []).append((edge, child))
    for items in out.values():
        items.sort(key=lambda item: (item[0].type, item[1]))
    return out


@dataclass
class _Ctx:
    lineage: Lineage
    direction: Direction
    children: Mapping[str, Sequence[tuple[EdgeView, str]]]
    by_id: Mapping[str, NodeView]
    shown: set[str]


def render_tree(lineage: Lineage, direction: Direction = Direction.UPSTREAM) -> str:
    """The lineage from its root, one node per line; BOTH prints upstream, then downstream."""
    if direction is Direction.BOTH:
        parts = [
            "upstream:",
            render_tree(lineage, Direction.UPSTREAM),
            "downstream:",
            render_tree(lineage, Direction.DOWNSTREAM),
        ]
        return "\n".join(parts)
    by_id = {n.id: n for n in lineage.nodes}
    by_id.setdefault(lineage.root.id, lineage.root)
    ctx = _Ctx(lineage, direction, _children(lineage, direction), by_id, {lineage.root.id})
    lines = [describe(lineage.root)]
    _walk(lineage.root.id, "", ctx, lines)
    if lineage.truncated:
        lines.append("… truncated: a depth or node limit was reached")
    return "\n".join(lines)


def _tree_edge(lineage: Lineage, parent: str, child: str) -> bool:
    """Expand a child under the parent that is one BFS step closer to the root (its shortest
    route); without depths, under the first parent met."""
    depths = lineage.depths
    if parent not in depths or child not in depths:
        return True
    return depths[child] == depths[parent] + 1


def _walk(
    node_id: str,
    indent: str,
    ctx: _Ctx,
    lines: list[str],
) -> None:
    items = ctx.children.get(node_id, ())
    for i, (edge, child) in enumerate(items):
        last = i == len(items) - 1
        branch, more = ("└── ", "    ") if last else ("├── ", "│   ")
        expand = child not in ctx.shown and _tree_edge(ctx.lineage, node_id, child)
        suffix = "" if expand else " (repeated)"
        label = _edge_label(edge, ctx.direction)
        lines.append(f"{indent}{branch}{label} {describe(ctx.by_id[child])}{suffix}")
        if expand:
            ctx.shown.add(child)
            _walk(child, indent + more, ctx, lines)
