"""The column lineage walk, pure: it goes hop by hop over the facets `columns.py` reads, and
asks the callables it is given for the datasets of the next hop (`column_reads.py` answers each
with one read filtered to the caller's scope, so an unreadable dataset is never reached):
upstream, the datasets the frontier's input fields name; downstream, the datasets whose facets
name the frontier's datasets. Depth and the number of columns are bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from provgraph.query.read.columns import InputField, Source, source
from provgraph.query.read.model import (
    ColumnEdge,
    ColumnKey,
    ColumnLineage,
    ColumnNode,
    Direction,
    NodeView,
)

ByMarquezId = Callable[[Sequence[str]], Sequence[NodeView]]
"""The readable datasets whose `marquez_id` is one of these."""
Consumers = Callable[[Sequence[tuple[str, str]]], Sequence[NodeView]]
"""The readable datasets whose facet may name one of these (namespace, name) pairs (a
superset is fine: the walk checks each input field)."""

Frontier = Mapping[str, set[str] | None]
"""Dataset id -> the fields to go on from (None: every field)."""


@dataclass
class _Graph:
    """What the walk found so far: columns with their depth, and edges."""

    limit: int
    sources: dict[str, Source] = field(default_factory=dict)
    by_marquez: dict[str, Source] = field(default_factory=dict)
    depths: dict[ColumnKey, int] = field(default_factory=dict)
    edges: dict[tuple[ColumnKey, ColumnKey], ColumnEdge] = field(default_factory=dict)
    truncated: bool = False

    def know(self, views: Iterable[NodeView]) -> None:
        for view in sorted(views, key=lambda v: v.id):
            found = self.sources.setdefault(view.id, source(view))
            key = found.marquez_id
            if key is not None:
                self.by_marquez.setdefault(key, found)

    def reach(self, key: ColumnKey, depth: int) -> bool:
        """Keep a column at `depth` (its smallest one); False when the column cap refuses it."""
        if key in self.depths:
            self.depths[key] = min(self.depths[key], depth)
            return True
        if len(self.depths) >= self.limit:
            self.truncated = True
            return False
        self.depths[key] = depth
        return True

    def link(self, src: ColumnKey, dst: ColumnKey, spec: InputField) -> None:
        if src in self.depths and dst in self.depths:
            self.edges.setdefault(
                (src, dst),
                ColumnEdge(
                    input=src,
                    output=dst,
                    transformation_description=spec.transformation_description,
                    transformation_type=spec.transformation_type,
                    transformations=spec.transformations,
                ),
            )


@dataclass
class _Hops:
    """The hops of one walk's levels: `graph` keeps what they reach, and each column first
    reached at the far end (upstream: the input; downstream: the output) is walked from at the
    next level."""

    graph: _Graph
    upstream: bool
    seen: set[ColumnKey] = field(default_factory=set)
    following: dict[str, set[str]] = field(default_factory=dict)

    def hop(self, src: ColumnKey, dst: ColumnKey, spec: InputField, level: int) -> None:
        """The edge `src` -> `dst` met at `level`: its near end (on the frontier) one level
        closer, its far end at `level`, unless the column cap refuses it."""
        near, far = (dst, src) if self.upstream else (src, dst)
        self.graph.reach(near, level - 1)
        if self.graph.reach(far, level) and far not in self.seen:
            self.seen.add(far)
            self.following.setdefault(far.dataset, set()).add(far.field)
        self.graph.link(src, dst, spec)

    def next_frontier(self) -> Frontier:
        """The far columns this level reached, by dataset; the next level starts empty."""
        reached, self.following = self.following, {}
        return reached


def _upstream(
    graph: _Graph, root: Source, field: str | None, depth: int, fetch: ByMarquezId
) -> None:
    frontier: Frontier = {root.view.id: None if field is None else {field}}
    hops = _Hops(graph, upstream=True)
    asked: set[str] = set()
    for level in range(1, depth + 1):
        pending = [
            (graph.sources[ds], spec)
            for ds, fields in sorted(frontier.items())
            for spec in graph.sources[ds].inputs
            if fields is None or spec.output in fields
        ]
        wanted = sorted({s.dataset for _, s in pending} - graph.by_marquez.keys() - asked)
        if wanted:
            asked.update(wanted)
            graph.know(fetch(wanted))
        for out, spec in pending:
            found = graph.by_marquez.get(spec.dataset)
            if found is None:
                continue  # absent, or of a project the caller may not read
            src, dst = ColumnKey(found.view.id, spec.field), ColumnKey(out.view.id, spec.output)
            hops.hop(src, dst, spec, level)
        frontier = hops.next_frontier()
        if not frontier:
            return


def _downstream(
    graph: _Graph, root: Source, field: str | None, depth: int, fetch: Consumers
) -> None:
    frontier: Frontier = {root.view.id: None if field is None else {field}}
    hops = _Hops(graph, upstream=False)
    for level in range(1, depth + 1):
        named: dict[tuple[str, str], str] = {}
        for ds in frontier:
            key = graph.sources[ds].ol_key
            if key is not None:
                named[key] = ds
        if not named:
            return
        found = fetch(sorted(named))
        if len(found) >= graph.limit:
            graph.truncated = True  # the reader's scan is capped at `limit` datasets
        graph.know(found)
        for consumer in sorted(graph.sources.values(), key=lambda s: s.view.id):
            for spec in consumer.inputs:
                fed = named.get((spec.namespace, spec.name))
                if fed is None or not _goes_on(frontier[fed], spec.field):
                    continue
                src, dst = ColumnKey(fed, spec.field), ColumnKey(consumer.view.id, spec.output)
                hops.hop(src, dst, spec, level)
        frontier = hops.next_frontier()
        if not frontier:
            return


def _goes_on(fields: set[str] | None, name: str) -> bool:
    return fields is None or name in fields


def walk(
    root: NodeView,
    *,
    field: str | None,
    direction: Direction,
    depth: int,
    limit: int,
    by_marquez_id: ByMarquezId,
    consumers: Consumers,
) -> ColumnLineage:
    """The column-level graph within `depth` hops of `root` (or of its column `field`), at
    most `limit` columns; `root` must already be readable (the caller looked it up)."""
    graph = _Graph(limit)
    graph.know([root])
    start = graph.sources[root.id]
    if field is not None:
        graph.reach(ColumnKey(root.id, field), 0)
    if direction in (Direction.UPSTREAM, Direction.BOTH):
        _upstream(graph, start, field, depth, by_marquez_id)
    if direction in (Direction.DOWNSTREAM, Direction.BOTH):
        _downstream(graph, start, field, depth, consumers)
    return _answer(graph, root, field)


def _answer(graph: _Graph, root: NodeView, field: str | None) -> ColumnLineage:
    nodes = tuple(
        ColumnNode(
            key=key,
            dataset=graph.sources[key.dataset].view,
            depth=level,
            field_type=graph.sources[key.dataset].types.get(key.field),
        )
        for key, level in sorted(graph.depths.items(), key=lambda item: (item[1], item[0]))
    )
    edges = tuple(edge for _, edge in sorted(graph.edges.items()))
    return ColumnLineage(root, field, nodes, edges, graph.truncated)
