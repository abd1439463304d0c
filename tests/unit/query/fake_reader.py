"""An in-memory ReadModel (and the column walk's reads, `FakeColumnReads`): the graph in lists,
answered as `GraphReader` answers it over Neo4j.

Scope and `asOf` are applied exactly where the reader's Cypher applies them (every node returned
or walked through, every relationship stepped over), so the GraphQL unit tests over this fake
can catch a leak between projects. `tests/contracts/read_model.py` holds this fake and the Neo4j
reader to the same answers on the same graph.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read import columns
from provgraph.query.read.column_reads import COLUMN_LINEAGE_JSON, column_lineage
from provgraph.query.read.convert import (
    as_number,
    bounded,
    decode_cursor,
    encode_cursor,
    label_of,
    rel_of,
    uri_variants,
)
from provgraph.query.read.graph_cypher import ARTIFACT_LABELS
from provgraph.query.read.model import (
    EVERY_NODE,
    ColumnLineage,
    Direction,
    EdgeView,
    GraphPath,
    HistoryEntry,
    ImpactItem,
    Lineage,
    NodeView,
    NodeWhere,
    Page,
    Scope,
)
from provgraph.query.settings import QuerySettings
from provgraph.schemas.graph import MARQUEZ_ID, Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, param_key

UP, DOWN, BOTH = Direction.UPSTREAM, Direction.DOWNSTREAM, Direction.BOTH
LINEAGE = frozenset(rel.value for rel in Rel)
Step = tuple[EdgeView, NodeView]
_DEAD = {Label.MODEL_VERSION.value: {"retired", "rejected"}, Label.DEPLOYMENT.value: {"retired"}}
_PATHS_CAP = 100


def seen_by(node: NodeView, scope: Scope, as_of: str | None) -> bool:
    """`visible(n)`: readable in the scope, and existing at `as_of`."""
    if not scope.allows(node.project):
        return False
    return as_of is None or (node.first_seen_at is not None and node.first_seen_at <= as_of)


def _edge_seen(edge: EdgeView, as_of: str | None) -> bool:
    """`rel_visible(r)`: a relationship without a first-seen stamp predates every cut."""
    return as_of is None or str(edge.props.get(FIRST_SEEN_AT) or "") <= as_of


def _facet_text(node: NodeView) -> str:
    """The stored `columnLineage` facet text ('' when absent), as the reader's filter sees it."""
    return str(node.props.get(COLUMN_LINEAGE_JSON) or "")


def _live(node: NodeView, as_of: str | None) -> bool:
    return node.deleted_at is None or (as_of is not None and node.deleted_at > as_of)


def _in_service(node: NodeView, as_of: str | None) -> bool:
    """A live ModelVersion or Deployment (retired or rejected ones are not)."""
    dead = _DEAD.get(node.type)
    status = str(node.props.get("status") or "")
    return dead is not None and _live(node, as_of) and status not in dead


def _text(value: Any) -> str:
    """Cypher's `toString` of a stored value."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _same_number(value: Any, number: float | None) -> bool:
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    return number is not None and numeric and value == number


class FakeColumnReads:
    """The column walk's reads (`ColumnReads`) over the same nodes and edges;
    tests/contracts/column_reads.py holds them to `ColumnReader`'s answers."""

    def __init__(self, by_id: Mapping[str, NodeView], edges: Sequence[EdgeView]) -> None:
        self.by_id, self.edges = by_id, edges

    def _readable(self, kinds: set[str], scope: Scope) -> list[NodeView]:
        found = (n for n in self.by_id.values() if n.type in kinds and seen_by(n, scope, None))
        return sorted(found, key=lambda n: n.id)

    def column_root(self, node_id: str, scope: Scope) -> tuple[NodeView, NodeView | None] | None:
        node = self.by_id.get(node_id)
        if node is None or not seen_by(node, scope, None):
            return None
        datasets = [
            self.by_id[e.dst]
            for e in self.edges
            if e.src == node_id and e.type == Rel.VERSION_OF.value and e.dst in self.by_id
        ]
        readable = (d for d in datasets if d.type == Label.DATASET and seen_by(d, scope, None))
        return node, next(readable, None)

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        readable = self._readable({Label.DATASET.value, Label.DATASET_VERSION.value}, scope)

        def first(key: str) -> NodeView | None:
            return next(
                (
                    n
                    for n in readable
                    if n.id == key or (n.type == Label.DATASET and n.props.get(MARQUEZ_ID) == key)
                ),
                None,
            )

        return [first(key) for key in keys]

    def column_consumers(
        self, keys: Sequence[tuple[str, str]], scope: Scope, limit: int
    ) -> list[NodeView]:
        texts = columns.consumer_keys(keys)
        found = [
            n
            for n in self._readable({Label.DATASET.value}, scope)
            if any(k["namespace"] in _facet_text(n) and k["name"] in _facet_text(n) for k in texts)
        ]
        return found[:limit]


class FakeReader:
    """Nodes, edges and each node's events in memory; counts calls so batching can be asserted."""

    def __init__(
        self,
        nodes: Sequence[NodeView],
        edges: Sequence[EdgeView],
        history: Mapping[str, Sequence[HistoryEntry]] | None = None,
        settings: QuerySettings | None = None,
    ) -> None:
        self.by_id = {n.id: n for n in nodes}
        self.edges = list(edges)
        self.events = {k: list(v) for k, v in (history or {}).items()}
        self.settings = settings or QuerySettings()
        self.calls: Counter[str] = Counter()
        self.neighbour_batches: list[tuple[str, tuple[str, ...]]] = []
        self.last_lineage: dict[str, Any] = {}
        self.columns = FakeColumnReads(self.by_id, self.edges)

    # ---- what every read applies -----------------------------------------------------------

    def _get(self, node_id: str, scope: Scope, as_of: str | None = None) -> NodeView | None:
        node = self.by_id.get(node_id)
        return node if node is not None and seen_by(node, scope, as_of) else None

    def _steps(
        self, node_id: str, direction: Direction, rels: frozenset[str], scope: Scope, as_of: Any
    ) -> Iterator[Step]:
        """The readable neighbours one step away (UPSTREAM: over outgoing edges)."""
        for edge in self.edges:
            if edge.type not in rels or not _edge_seen(edge, as_of):
                continue
            if direction is not DOWN and edge.src == node_id:
                other = self._get(edge.dst, scope, as_of)
            elif direction is not UP and edge.dst == node_id:
                other = self._get(edge.src, scope, as_of)
            else:
                continue
            if other is not None:
                yield edge, other

    def _bfs(
        self, root: str, direction: Direction, depth: int, scope: Scope, as_of: Any
    ) -> dict[str, tuple[int, Step | None]]:
        """Each reached node: its BFS depth and the step that first reached it."""
        reached: dict[str, tuple[int, Step | None]] = {root: (0, None)}
        queue = deque([root])
        while queue:
            current = queue.popleft()
            level = reached[current][0]
            if level == depth:
                continue
            for edge, node in self._steps(current, direction, LINEAGE, scope, as_of):
                if node.id not in reached:
                    reached[node.id] = (level + 1, (edge, self.by_id[current]))
                    queue.append(node.id)
        return reached

    def _page_size(self, first: int) -> int:
        return bounded("first", first, self.settings.page_max_size)

    # ---- lookups -------------------------------------------------------------------------------

    def node(self, node_id: str, scope: Scope, as_of: str | None = None) -> NodeView | None:
        self.calls["node"] += 1
        return self._get(node_id, scope, as_of)

    def nodes(
        self, ids: Sequence[str], scope: Scope, as_of: str | None = None
    ) -> list[NodeView | None]:
        self.calls["nodes"] += 1
        return [self._get(i, scope, as_of) for i in ids]

    def neighbours(
        self, ids: Sequence[str], rel: str, direction: Direction, scope: Scope, as_of: Any = None
    ) -> list[list[Step]]:
        self.calls["neighbours"] += 1
        self.neighbour_batches.append((rel, tuple(ids)))
        rels = frozenset({rel_of(rel).value})
        return [
            sorted(self._steps(i, Direction(direction), rels, scope, as_of), key=lambda s: s[1].id)
            if self._get(i, scope, as_of)
            else []
            for i in ids
        ]

    def find(
        self,
        type: str,
        scope: Scope,
        *,
        project: str | None = None,
        name: str | None = None,
        version: str | None = None,
        number: int | None = None,
    ) -> NodeView | None:
        self.calls["find"] += 1
        if name is None and version is None and number is None:
            raise InvalidArgumentError("find needs a name, version or number")
        label = label_of(type).value
        wanted = {"name": name, "version": version, "number": number}
        found = [
            n
            for n in self.by_id.values()
            if n.type == label
            and seen_by(n, scope, None)
            and project in (None, n.project)
            and all(v is None or n.props.get(k) == v for k, v in wanted.items())
        ]
        found.sort(key=lambda n: (n.deleted_at is not None, n.project or "", n.id))
        return found[0] if found else None

    def list_nodes(
        self,
        type: str,
        scope: Scope,
        where: NodeWhere = EVERY_NODE,
        *,
        first: int = 50,
        after: str | None = None,
    ) -> Page:
        self.calls["list_nodes"] += 1
        size, label = self._page_size(first), label_of(type).value
        after_at, after_id = decode_cursor(after)

        def kept(n: NodeView) -> bool:
            seen = n.first_seen_at or ""
            return (
                n.type == label
                and self.passes(n, where, scope)
                and (after_at is None or (seen, n.id) > (after_at, after_id or ""))
            )

        found = sorted(filter(kept, self.by_id.values()), key=lambda n: (n.first_seen_at, n.id))
        items = tuple(found[:size])
        more = len(found) > size and bool(items)
        cursor = encode_cursor(items[-1].first_seen_at or "", items[-1].id) if more else None
        return Page(items=items, next_cursor=cursor)

    def passes(self, n: NodeView, where: NodeWhere, scope: Scope) -> bool:
        """What `fragments.passes` (with `visible` and `live`) keeps."""
        seen = n.first_seen_at or ""
        return (
            seen_by(n, scope, None)
            and _live(n, None)
            and where.project in (None, n.project)
            and where.status in (None, n.props.get("status"))
            and (where.since is None or seen >= where.since)
            and (where.until is None or seen < where.until)
            and (where.param is None or self._has_param(n, *where.param))
            and (where.experiment is None or self._part_of(n, where.experiment, scope))
            and (where.uses is None or self._uses(n, where.uses, scope))
        )

    def _has_param(self, node: NodeView, name: str, value: str) -> bool:
        stored = node.props.get(param_key(name))
        return stored is not None and (
            _text(stored) == value or _same_number(stored, as_number(value))
        )

    def _part_of(self, node: NodeView, experiment: str, scope: Scope) -> bool:
        steps = self._steps(node.id, UP, frozenset({Rel.PART_OF.value}), scope, None)
        return any(n.id == experiment and n.type == Label.EXPERIMENT for _, n in steps)

    def _uses(self, node: NodeView, version: str, scope: Scope) -> bool:
        """`node` used the dataset version, or a run that generated it did."""

        def targets(of: str, rel: Rel, label: Label) -> list[str]:
            steps = self._steps(of, UP, frozenset({rel.value}), scope, None)
            return [n.id for _, n in steps if n.type == label]

        makers = targets(node.id, Rel.GENERATED_BY, Label.RUN)
        return any(
            version in targets(n, Rel.USED, Label.DATASET_VERSION) for n in [node.id, *makers]
        )

    def search(
        self,
        text: str,
        scope: Scope,
        *,
        types: Sequence[str] = (),
        where: NodeWhere = EVERY_NODE,
        first: int = 50,
    ) -> list[NodeView]:
        self.calls["search"] += 1
        labels, size, needle = (
            {label_of(t).value for t in types},
            self._page_size(first),
            text.lower(),
        )
        found = [
            n
            for n in self.by_id.values()
            if self.passes(n, where, scope)
            and (needle in str(n.props.get("name") or "").lower() or needle in n.id.lower())
            and (not labels or n.type in labels)
        ]
        return sorted(found, key=lambda n: n.id)[:size]

    def projects(self, scope: Scope) -> list[str]:
        self.calls["projects"] += 1
        return sorted(
            {
                n.project
                for n in self.by_id.values()
                if n.project is not None and n.type != Label.PRINCIPAL and seen_by(n, scope, None)
            }
        )

    def artifact(
        self, scope: Scope, *, uri: str | None = None, checksum: str | None = None
    ) -> list[NodeView]:
        self.calls["artifact"] += 1
        if not uri and not checksum:
            raise InvalidArgumentError("artifact needs a uri or a checksum")
        uris = uri_variants(uri) if uri else []
        kinds = {label.value for label in ARTIFACT_LABELS}

        def stored_at(n: NodeView) -> bool:
            where = n.props.get("storage_uri", n.props.get("uri"))
            return where in uris or (bool(checksum) and n.props.get("checksum") == checksum)

        found = [
            n
            for n in self.by_id.values()
            if n.type in kinds and seen_by(n, scope, None) and stored_at(n)
        ]
        return sorted(found, key=lambda n: n.id)[: self.settings.page_max_size]

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        self.calls["datasets_by_key"] += 1
        return self.columns.datasets_by_key(keys, scope)

    def column_lineage(
        self,
        dataset_id: str,
        scope: Scope,
        *,
        field: str | None = None,
        direction: Direction = UP,
        depth: int = 5,
        limit: int = 1000,
    ) -> ColumnLineage | None:
        self.calls["column_lineage"] += 1
        depth = bounded("depth", depth, self.settings.lineage_max_depth)
        limit = bounded("limit", limit, self.settings.lineage_max_limit)
        return column_lineage(
            self.columns,
            dataset_id,
            scope,
            field=field,
            direction=Direction(direction),
            depth=depth,
            limit=limit,
        )

    def history(
        self, node_id: str, scope: Scope, *, first: int = 50, after: str | None = None
    ) -> Page | None:
        self.calls["history"] += 1
        size = self._page_size(first)
        after_at, after_id = decode_cursor(after)
        if self._get(node_id, scope) is None:
            return None
        readable = [e for e in self.events.get(node_id, ()) if scope.allows(e.project)]
        events = sorted(readable, key=lambda e: (e.occurred_at, e.event_id), reverse=True)
        if after_at is not None:
            events = [e for e in events if (e.occurred_at, e.event_id) < (after_at, after_id or "")]
        items = tuple(events[:size])
        more = len(events) > size and bool(items)
        cursor = encode_cursor(items[-1].occurred_at, items[-1].event_id) if more else None
        return Page(items=items, next_cursor=cursor)

    # ---- traversals ----------------------------------------------------------------------------

    def lineage(
        self,
        node_id: str,
        scope: Scope,
        *,
        direction: Direction = UP,
        depth: int = 5,
        types: Sequence[str] = (),
        as_of: str | None = None,
        limit: int = 1000,
    ) -> Lineage | None:
        self.calls["lineage"] += 1
        self.last_lineage = {"depth": depth, "limit": limit, "direction": direction}
        depth = bounded("depth", depth, self.settings.lineage_max_depth)
        limit = bounded("limit", limit, self.settings.lineage_max_limit)
        labels = {label_of(t).value for t in types}
        root = self._get(node_id, scope, as_of)
        if root is None:
            return None
        ways = [UP, DOWN] if Direction(direction) is BOTH else [Direction(direction)]
        depths: dict[str, int] = {}
        for way in ways:
            for found, (level, _) in self._bfs(root.id, way, depth, scope, as_of).items():
                depths[found] = min(level, depths.get(found, level))
        reached = sorted(
            (level, found)
            for found, level in depths.items()
            if found != root.id and (not labels or self.by_id[found].type in labels)
        )
        kept = reached[:limit]
        members = {root.id} | {found for _, found in kept}
        edges = [
            e
            for e in self.edges
            if e.type in LINEAGE and e.src in members and e.dst in members and _edge_seen(e, as_of)
        ]
        return Lineage(
            root=root,
            nodes=tuple(self.by_id[found] for _, found in kept),
            depths={root.id: 0, **{found: level for level, found in kept}},
            edges=tuple(sorted(edges, key=lambda e: (e.src, e.type, e.dst))),
            truncated=len(reached) > limit,
        )

    def impact(
        self, node_id: str, scope: Scope, as_of: str | None = None
    ) -> list[ImpactItem] | None:
        self.calls["impact"] += 1
        root = self._get(node_id, scope, as_of)
        if root is None:
            return None
        reached = self._bfs(root.id, DOWN, self.settings.lineage_max_depth, scope, as_of)
        items = []
        for found, (level, _) in sorted(reached.items(), key=lambda x: (x[1][0], x[0])):
            node = self.by_id[found]
            if level and _in_service(node, as_of):
                items.append(ImpactItem(node, self._path_to(found, reached)))
        return items

    def _path_to(self, end: str, reached: Mapping[str, tuple[int, Step | None]]) -> GraphPath:
        """The path by which the BFS first reached `end`, from the root."""
        nodes, edges = [self.by_id[end]], list[EdgeView]()
        step = reached[end][1]
        while step is not None:
            edge, parent = step
            nodes.insert(0, parent)
            edges.insert(0, edge)
            step = reached[parent.id][1]
        return GraphPath(nodes=tuple(nodes), edges=tuple(edges))

    def paths(
        self, src: str, dst: str, scope: Scope, *, max_depth: int = 20
    ) -> list[GraphPath] | None:
        self.calls["paths"] += 1
        max_depth = bounded("max_depth", max_depth, self.settings.lineage_max_depth)
        start, end = self._get(src, scope), self._get(dst, scope)
        if start is None or end is None:
            return None
        if src == dst:
            return [GraphPath(nodes=(start,), edges=())]
        return self._all_shortest(start, end, scope, max_depth)[:_PATHS_CAP]

    def _all_shortest(
        self, start: NodeView, end: NodeView, scope: Scope, max_depth: int
    ) -> list[GraphPath]:
        """Every shortest path over lineage edges taken either way (the reader's ALL SHORTEST)."""
        level, parents = {start.id: 0}, {start.id: list[Step]()}
        frontier = [start.id]
        while frontier and end.id not in level and level[frontier[0]] < max_depth:
            following: list[str] = []
            for current in frontier:
                for edge, node in self._steps(current, BOTH, LINEAGE, scope, None):
                    if node.id not in level:
                        level[node.id], parents[node.id] = level[current] + 1, []
                        following.append(node.id)
                    if level[node.id] == level[current] + 1:
                        parents[node.id].append((edge, self.by_id[current]))
            frontier = following
        return list(self._unwind(end, parents)) if end.id in level else []

    def _unwind(self, node: NodeView, parents: Mapping[str, list[Step]]) -> Iterator[GraphPath]:
        if not parents[node.id]:
            yield GraphPath(nodes=(node,), edges=())
            return
        for edge, parent in parents[node.id]:
            for head in self._unwind(parent, parents):
                yield GraphPath(nodes=(*head.nodes, node), edges=(*head.edges, edge))
