"""A canonical, comparable form of a graph: the shape `verify` and `graph-hash` work on.

Nodes are keyed by `id` (lineage nodes, metric series) or `event:<event_id>` (applied events);
each holds its sorted labels and its properties. Relationships are a sorted list of lines
``<src> -[<TYPE> <props-json>]-> <dst>``. Bookkeeping offsets are left out: they depend on
where the log was read, not on what it says.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CanonicalGraph:
    """Nodes (key -> labels and properties) and relationship lines."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[str] = field(default_factory=list)

    def add_node(self, key: str, labels: list[str], props: dict[str, Any]) -> None:
        """Record one node; lists become JSON arrays either way."""
        self.nodes[key] = {"labels": sorted(labels), "props": _plain(props)}

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any]) -> None:
        """Record one relationship."""
        self.edges.append(edge_line(src, rel, dst, props))

    def finish(self) -> CanonicalGraph:
        """Sort the relationship lines (call once everything is added)."""
        self.edges.sort()
        return self

    def digest(self) -> str:
        """sha256 of the canonical JSON text."""
        text = json.dumps({"nodes": self.nodes, "edges": sorted(self.edges)}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _plain(props: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple | list) else v for k, v in sorted(props.items())}


def edge_line(src: str, rel: str, dst: str, props: dict[str, Any]) -> str:
    """One relationship as a sortable line."""
    text = json.dumps(_plain(props), sort_keys=True, separators=(",", ":"))
    return f"{src} -[{rel} {text}]-> {dst}"


def event_key(event_id: str) -> str:
    """The canonical key of an applied event."""
    return f"event:{event_id}"


def diff(expected: CanonicalGraph, actual: CanonicalGraph, limit: int = 200) -> list[str]:
    """Human-readable differences, `expected` being the fold of the log."""
    lines: list[str] = []
    for key in sorted(expected.nodes.keys() - actual.nodes.keys()):
        lines.append(f"missing node {key}")
    for key in sorted(actual.nodes.keys() - expected.nodes.keys()):
        lines.append(f"unexpected node {key}")
    for key in sorted(expected.nodes.keys() & actual.nodes.keys()):
        lines += _node_diff(key, expected.nodes[key], actual.nodes[key])
    want, got = set(expected.edges), set(actual.edges)
    lines += [f"missing relationship {line}" for line in sorted(want - got)]
    lines += [f"unexpected relationship {line}" for line in sorted(got - want)]
    if len(lines) > limit:
        return [*lines[:limit], f"... and {len(lines) - limit} more differences"]
    return lines


def _node_diff(key: str, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    lines = []
    if want["labels"] != got["labels"]:
        lines.append(f"node {key}: labels {got['labels']} != expected {want['labels']}")
    a, b = want["props"], got["props"]
    for prop in sorted(a.keys() | b.keys()):
        if a.get(prop) != b.get(prop):
            lines.append(f"node {key}: {prop} = {b.get(prop)!r}, expected {a.get(prop)!r}")
    return lines
