"""A canonical, comparable form of a graph: the shape `verify` and `graph-hash` work on.

Nodes are keyed by `id` (lineage nodes, metric series) or `event:<event_id>` (applied events);
each holds its sorted labels and its properties. Relationships are lines
``<src> -[<TYPE> <props-json>]-> <dst>``. Bookkeeping offsets are left out: they depend on
where the log was read, not on what it says.

A graph is handed to a `Sink` node by node and relationship by relationship, in any order:
`CanonicalGraph` keeps them (all, or only those of some parts), `Summary` keeps a digest per
part. Every node and relationship belongs to one of `PARTS` parts, by its key (a
relationship by its source's), so two graphs of any size are compared part by part in
bounded memory: the digests first, then only the parts whose digests differ, in full.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

PARTS = 256
"""How many parts a graph is cut into for comparing (a power of two: `part_of` masks)."""

_MODULUS = 1 << 256


def part_of(key: str) -> int:
    """The part a node (by its key) or a relationship (by its source's key) belongs to."""
    return zlib.crc32(key.encode()) & (PARTS - 1)


def node_record(labels: list[str], props: dict[str, Any]) -> dict[str, Any]:
    """A node's canonical record: sorted labels, plain properties (lists as JSON arrays)."""
    return {"labels": sorted(labels), "props": _plain(props)}


class Sink(Protocol):
    """What a graph is handed to, one node and one relationship at a time, in any order."""

    parts: Collection[int] | None
    """The parts it keeps (the rest it drops: a graph may leave them out); None: every part."""

    def add_node(self, key: str, labels: list[str], props: dict[str, Any]) -> None:
        """Take one node."""
        ...

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any]) -> None:
        """Take one relationship."""
        ...


@dataclass
class CanonicalGraph:
    """Nodes (key -> labels and properties) and relationship lines; with `parts`, only the
    nodes and relationships of those parts (the rest is handed over and dropped)."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[str] = field(default_factory=list)
    parts: Collection[int] | None = None
    _sources: list[str] = field(default_factory=list, repr=False)  # each edge's source key

    def add_node(self, key: str, labels: list[str], props: dict[str, Any]) -> None:
        """Record one node; lists become JSON arrays either way."""
        if self.parts is None or part_of(key) in self.parts:
            self.nodes[key] = node_record(labels, props)

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any]) -> None:
        """Record one relationship."""
        if self.parts is None or part_of(src) in self.parts:
            self.edges.append(edge_line(src, rel, dst, props))
            self._sources.append(src)

    def finish(self) -> CanonicalGraph:
        """Sort the relationship lines (call once everything is added)."""
        pairs = sorted(zip(self.edges, self._sources, strict=True))
        self.edges, self._sources = [e for e, _ in pairs], [s for _, s in pairs]
        return self

    @classmethod
    def collected(
        cls, emit: Callable[[Sink], None], parts: Collection[int] | None = None
    ) -> CanonicalGraph:
        """The canonical graph of what `emit` hands to a sink (with `parts`, only those)."""
        graph = cls(parts=parts)
        emit(graph)
        return graph.finish()

    def summary(self) -> Summary:
        """The digests of this graph's parts, as a `Summary` fed the same graph computes."""
        summary = Summary()
        for key, node in self.nodes.items():
            summary.add_item(key, node_text(key, node))
        for line, src in zip(self.edges, self._sources, strict=True):
            summary.add_item(src, line)
        return summary

    def digest(self) -> str:
        """The graph's hash: `Summary.digest` of it."""
        return self.summary().digest()


class Summary:
    """The digest of each part of a graph: the count of its nodes and relationships and the
    sum of their sha256 (modulo 2**256), so the order they are handed over in does not count.
    Holds 2 x `PARTS` numbers whatever the graph's size."""

    parts: Collection[int] | None = None

    def __init__(self) -> None:
        self.sums = [0] * PARTS
        self.counts = [0] * PARTS

    def add_node(self, key: str, labels: list[str], props: dict[str, Any]) -> None:
        """Add one node."""
        self.add_item(key, node_text(key, node_record(labels, props)))

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any]) -> None:
        """Add one relationship."""
        self.add_item(src, edge_line(src, rel, dst, props))

    def add_item(self, key: str, text: str) -> None:
        """Add one node's or relationship's canonical text to the part of `key`."""
        part = part_of(key)
        value = int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")
        self.sums[part] = (self.sums[part] + value) % _MODULUS
        self.counts[part] += 1

    def differing(self, other: Summary) -> list[int]:
        """The parts whose contents differ between the two graphs."""
        return [
            p
            for p in range(PARTS)
            if (self.sums[p], self.counts[p]) != (other.sums[p], other.counts[p])
        ]

    def digest(self) -> str:
        """sha256 of every part's count and sum: the graph's hash."""
        text = ",".join(f"{c}:{s:064x}" for c, s in zip(self.counts, self.sums, strict=True))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def size(self) -> int:
        """Nodes and relationships added."""
        return sum(self.counts)


def node_text(key: str, node: dict[str, Any]) -> str:
    """One node (its labels and plain properties, as `CanonicalGraph` keeps them) as text."""
    return key + "\n" + json.dumps(node, sort_keys=True, separators=(",", ":"))


def _plain(props: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple | list) else v for k, v in sorted(props.items())}


def edge_line(src: str, rel: str, dst: str, props: dict[str, Any]) -> str:
    """One relationship as a sortable line."""
    text = json.dumps(_plain(props), sort_keys=True, separators=(",", ":"))
    return f"{src} -[{rel} {text}]-> {dst}"


def event_key(event_id: str) -> str:
    """The canonical key of an applied event."""
    return f"event:{event_id}"


def diff(expected: CanonicalGraph, actual: CanonicalGraph, limit: int | None = 200) -> list[str]:
    """Human-readable differences, `expected` being the fold of the log (at most `limit`
    and a line counting the rest; every one with None)."""
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
    if limit is not None and len(lines) > limit:
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
