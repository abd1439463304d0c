"""The read model over Neo4j: `GraphReader` implements `ReadModel`, one round trip per call.

Its Cypher stands beside it in `read/graph_cypher.py` (column lineage: `read/column_reads.py`);
this module validates arguments, binds parameters (always including the caller's scope) and
converts records (`read/convert.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import Record

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read import graph_cypher
from provgraph.query.read.column_reads import ColumnReads, column_lineage
from provgraph.query.read.convert import (
    bounded,
    decode_cursor,
    edge_view,
    encode_cursor,
    graph_path,
    label_of,
    node_view,
    rel_of,
    scope_params,
    uri_variants,
    where_params,
)
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
from provgraph.query.read.session import ReadSession
from provgraph.query.settings import QuerySettings
from provgraph.schemas import issued_name

_NEIGHBOUR_ARROWS = {
    Direction.UPSTREAM: ("-", "->"),
    Direction.DOWNSTREAM: ("<-", "-"),
    Direction.BOTH: ("-", "-"),
}
_DEAD_MODEL_STATUSES = ["retired", "rejected"]
_PATHS_CAP = 100  # ALL SHORTEST can multiply on diamonds; a caller needs a handful at most.


class GraphReader:
    """Reads the projected lineage graph; every method applies the caller's `Scope`."""

    def __init__(
        self, session: ReadSession, columns: ColumnReads, settings: QuerySettings | None = None
    ) -> None:
        self._session = session
        self._columns = columns
        self._settings = settings or QuerySettings()

    def _read(
        self, text: str, scope: Scope, params: dict[str, Any], as_of: str | None = None
    ) -> list[Record]:
        """One read, with the scope's parameters bound beside `params`."""
        return self._session.run(text, {**scope_params(scope, as_of), **params})

    def _page_size(self, first: int) -> int:
        return bounded("first", first, self._settings.page_max_size)

    # -- lookups ----------------------------------------------------------------------------

    def node(self, node_id: str, scope: Scope, as_of: str | None = None) -> NodeView | None:
        """One node by id; None when absent, unreadable, or first seen after `as_of`."""
        return self.nodes([node_id], scope, as_of)[0]

    def nodes(
        self, ids: Sequence[str], scope: Scope, as_of: str | None = None
    ) -> list[NodeView | None]:
        """Many nodes by id, in the order asked (None where absent or unreadable)."""
        records = self._read(graph_cypher.NODES, scope, {"ids": list(ids)}, as_of)
        found = {view.id: view for view in (node_view(r["n"]) for r in records)}
        return [found.get(node_id) for node_id in ids]

    def neighbours(
        self,
        ids: Sequence[str],
        rel: str,
        direction: Direction,
        scope: Scope,
        as_of: str | None = None,
    ) -> list[list[tuple[EdgeView, NodeView]]]:
        """For each id, its `rel` neighbours (UPSTREAM: outgoing, DOWNSTREAM: incoming)."""
        text = graph_cypher.neighbours(rel_of(rel), _NEIGHBOUR_ARROWS[Direction(direction)])
        records = self._read(text, scope, {"ids": list(ids)}, as_of)
        found: dict[str, list[tuple[EdgeView, NodeView]]] = {}
        for r in records:
            found.setdefault(r["id"], []).append((edge_view(r["edge"]), node_view(r["node"])))
        return [found.get(node_id, []) for node_id in ids]

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
        """Lookup by natural key: ModelVersion / DatasetVersion by name + version, Model /
        Dataset (or any named type) by name, Experiment by number; `project` narrows."""
        if name is None and version is None and number is None:
            raise InvalidArgumentError("find needs a name, version or number")
        params = {"project": project, "name": name, "version": version, "number": number}
        records = self._read(graph_cypher.find(label_of(type)), scope, params)
        return node_view(records[0]["n"]) if records else None

    def list_nodes(
        self,
        type: str,
        scope: Scope,
        where: NodeWhere = EVERY_NODE,
        *,
        first: int = 50,
        after: str | None = None,
    ) -> Page:
        """Live nodes of a type passing `where`, ordered by (first_seen_at, id); `since`
        inclusive, `until` exclusive; a param compared as text (or as a number)."""
        size = self._page_size(first)
        after_at, after_id = decode_cursor(after)
        params = {**where_params(where), "after_at": after_at, "after_id": after_id}
        records = self._read(
            graph_cypher.list_nodes(label_of(type)), scope, {**params, "fetch": size + 1}
        )
        items = [node_view(r["n"]) for r in records[:size]]
        more = len(records) > size and bool(items)
        cursor = encode_cursor(items[-1].first_seen_at or "", items[-1].id) if more else None
        return Page(items=tuple(items), next_cursor=cursor)

    def search(
        self,
        text: str,
        scope: Scope,
        *,
        types: Sequence[str] = (),
        where: NodeWhere = EVERY_NODE,
        first: int = 50,
    ) -> list[NodeView]:
        """Case-insensitive substring search over names and ids of live nodes passing
        `where`, by id."""
        params = {
            **where_params(where),
            "text": text.lower(),
            "types": [label_of(t).value for t in types],
            "fetch": self._page_size(first),
        }
        return [node_view(r["n"]) for r in self._read(graph_cypher.SEARCH, scope, params)]

    def projects(self, scope: Scope) -> list[str]:
        """The projects of the nodes the caller may read, by name (not token holders')."""
        return [str(r["project"]) for r in self._read(graph_cypher.PROJECTS, scope, {})]

    def artifact(
        self, scope: Scope, *, uri: str | None = None, checksum: str | None = None
    ) -> list[NodeView]:
        """DatasetVersions, Checkpoints and ModelVersions stored at `uri` or with `checksum`."""
        if not uri and not checksum:
            raise InvalidArgumentError("artifact needs a uri or a checksum")
        params = {
            "uris": uri_variants(uri) if uri else [],
            "checksum": checksum or None,
            "fetch": self._settings.page_max_size,
        }
        return [node_view(r["n"]) for r in self._read(graph_cypher.ARTIFACT, scope, params)]

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        """For each key, a Dataset or DatasetVersion with that provgraph id or Marquez id."""
        return self._columns.datasets_by_key(keys, scope)

    # -- column lineage ---------------------------------------------------------------------

    def column_lineage(
        self,
        dataset_id: str,
        scope: Scope,
        *,
        field: str | None = None,
        direction: Direction = Direction.UPSTREAM,
        depth: int = 5,
        limit: int = 1000,
    ) -> ColumnLineage | None:
        """The column-level graph from the latest `columnLineage` facets: one read for the
        start, then one per hop and direction (`read/column_reads.py`)."""
        depth = bounded("depth", depth, self._settings.lineage_max_depth)
        limit = bounded("limit", limit, self._settings.lineage_max_limit)
        return column_lineage(
            self._columns,
            dataset_id,
            scope,
            field=field,
            direction=Direction(direction),
            depth=depth,
            limit=limit,
        )

    # -- history ----------------------------------------------------------------------------

    def history(
        self, node_id: str, scope: Scope, *, first: int = 50, after: str | None = None
    ) -> Page | None:
        """The events that touched the node, newest first by (occurred_at, event_id)."""
        size = self._page_size(first)
        after_at, after_id = decode_cursor(after)
        params = {"id": node_id, "after_at": after_at, "after_id": after_id, "fetch": size + 1}
        records = self._read(graph_cypher.HISTORY, scope, params)
        if not records:
            return None
        events = records[0]["events"]
        items = tuple(_history_entry(e) for e in events[:size])
        more = len(events) > size and bool(items)
        cursor = encode_cursor(items[-1].occurred_at, items[-1].event_id) if more else None
        return Page(items=items, next_cursor=cursor)

    # -- traversals -------------------------------------------------------------------------

    def lineage(
        self,
        node_id: str,
        scope: Scope,
        *,
        direction: Direction = Direction.UPSTREAM,
        depth: int = 5,
        types: Sequence[str] = (),
        as_of: str | None = None,
        limit: int = 1000,
    ) -> Lineage | None:
        """Distinct nodes breadth-first up to `depth` and `limit`; `nodes` excludes the root,
        `depths` maps the root (0) and every node; `truncated` when more than `limit` matched."""
        depth = bounded("depth", depth, self._settings.lineage_max_depth)
        limit = bounded("limit", limit, self._settings.lineage_max_limit)
        labels = [label_of(t).value for t in types]
        text = graph_cypher.lineage(Direction(direction), depth)
        params = {"id": node_id, "types": labels, "limit": limit, "fetch": limit + 1}
        records = self._read(text, scope, params, as_of)
        if not records:
            return None
        record = records[0]
        root = node_view(record["root"])
        kept = [(node_view(x["node"]), int(x["depth"])) for x in record["kept"]]
        return Lineage(
            root=root,
            nodes=tuple(view for view, _ in kept),
            depths={root.id: 0, **{view.id: d for view, d in kept}},
            edges=tuple(sorted((edge_view(e) for e in record["edges"]), key=_edge_key)),
            truncated=bool(record["truncated"]),
        )

    def impact(
        self, node_id: str, scope: Scope, as_of: str | None = None
    ) -> list[ImpactItem] | None:
        """Live ModelVersions and Deployments downstream, each with one shortest path from the
        start (nodes in traversal order), nearest first."""
        text = graph_cypher.impact(self._settings.lineage_max_depth)
        params = {
            "id": node_id,
            "dead_model": _DEAD_MODEL_STATUSES,
            "dead_deployment": "retired",
        }
        records = self._read(text, scope, params, as_of)
        if not records:
            return None
        paths = [graph_path(item) for item in records[0]["items"]]
        return [ImpactItem(node=path.nodes[-1], path=path) for path in paths]

    def paths(
        self, src: str, dst: str, scope: Scope, *, max_depth: int = 20
    ) -> list[GraphPath] | None:
        """The shortest lineage path(s) between two nodes, over edges in either direction;
        None when either end is absent or unreadable, [] when they are not connected."""
        max_depth = bounded("max_depth", max_depth, self._settings.lineage_max_depth)
        if src == dst:
            found = self.node(src, scope)
            return None if found is None else [GraphPath(nodes=(found,), edges=())]
        params = {"src": src, "dst": dst, "fetch": _PATHS_CAP}
        records = self._read(graph_cypher.paths(max_depth), scope, params)
        if not records:
            return None
        return [graph_path(p) for p in records[0]["paths"]]


def _history_entry(row: dict[str, Any]) -> HistoryEntry:
    return HistoryEntry(
        event_id=str(row["event_id"]),
        event_type=str(row["event_type"]),
        occurred_at=str(row["occurred_at"]),
        producer=row.get("producer"),
        actor=row.get("actor"),
        subject=row.get("subject"),
        project=str(row["project"]),
        principal=issued_name(row.get("principal")),
        logged_at=row.get("logged_at"),
    )


def _edge_key(edge: EdgeView) -> tuple[str, str, str]:
    return (edge.src, edge.type, edge.dst)
