"""The contract graphs of the recipe read ports (`RecipeReads`, `CompareReads`, `BestEnvReads`):
nodes and edges named by key, over two projects, in memory as the ports' fakes read them
(`ViewGraph`) and in Neo4j in their stored form (`written`).

Both sides start from the same `KeyedGraph`, so an answer that differs between them is a
difference between the adapters, never between two copies of the data. The Neo4j side is
written straight in the storage encoding (`provgraph.schemas.storage`), as the ReadModel
contract writes its graph: bookkeeping properties, a version stamp beside every property and
on every relationship (which no reader may hand back), a first-seen stamp on every
relationship, nested values as JSON text with their flattened copies where a graph says so.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import Driver

from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas import storage
from provgraph.schemas.graph import Label, Rel

T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)


def at(minute: int) -> str:
    """The stored time `minute` minutes after the graphs' start."""
    return storage.format_time(T0 + timedelta(minutes=minute))


def stored(node: NodeView) -> dict[str, Any]:
    """The node's properties as stored, without version stamps: what `properties(n)` answers
    once the reader has dropped them (an unset bookkeeping property is not stored at all)."""
    bookkeeping = {
        storage.ID: node.id,
        storage.PROJECT: node.project,
        storage.FIRST_SEEN_AT: node.first_seen_at,
        storage.LAST_EVENT_AT: node.last_event_at,
        storage.DELETED_AT: node.deleted_at,
        storage.PLACEHOLDER: node.placeholder,
    }
    return {**node.props, **{k: v for k, v in bookkeeping.items() if v is not None}}


@dataclass
class KeyedGraph:
    """A contract graph: each node named by a key. In an id template `{a}` and `{b}` stand for
    the two project names and `{uuid}` for a uuid of the node's own; a node belongs to the
    project its id names (`a` when it names none, unless `mark`ed otherwise)."""

    a: str
    b: str
    nodes: dict[str, NodeView] = field(default_factory=dict)
    edges: list[EdgeView] = field(default_factory=list)

    def add(
        self, key: str, label: Label, template: str, seen: str = at(0), /, **props: Any
    ) -> None:
        """Node `key`, first seen at `seen`, with the properties `props`."""
        assert key not in self.nodes, key
        project = self.b if "{b}" in template else self.a
        own = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.a}/{key}")
        node_id = template.format(a=self.a, b=self.b, uuid=own)
        self.nodes[key] = NodeView(node_id, label.value, project, seen, seen, None, False, props)

    def mark(
        self,
        key: str,
        *,
        deleted: str | None = None,
        placeholder: bool = False,
        owner: str | None = None,
    ) -> None:
        """Node `key` deleted at `deleted`, a placeholder, or of project `owner` ("b")."""
        node = self.nodes[key]
        project = {"a": self.a, "b": self.b}.get(owner or "", node.project)
        self.nodes[key] = replace(
            node, deleted_at=deleted, placeholder=placeholder, project=project
        )

    def link(self, src: str, rel: Rel, dst: str, seen: str = at(0), /, **props: Any) -> None:
        """A relationship from node `src` to node `dst` (keys)."""
        edge_props = {**props, storage.FIRST_SEEN_AT: seen}
        self.edges.append(EdgeView(self.id(src), self.id(dst), rel.value, edge_props))

    def id(self, key: str) -> str:
        return self.nodes[key].id

    def ids(self, *keys: str) -> list[str]:
        """The ids of `keys`, sorted."""
        return sorted(self.id(k) for k in keys)

    def props(self, key: str) -> dict[str, Any]:
        """The stored properties of node `key`, as the reads answer them."""
        return stored(self.nodes[key])

    def by_id(self, *keys: str) -> list[dict[str, Any]]:
        """The stored properties of `keys`, in the order of their ids."""
        return sorted((self.props(k) for k in keys), key=lambda p: str(p[storage.ID]))

    def scopes(self) -> tuple[Scope, Scope]:
        """Project a alone; projects a and b (as good as everything, on this graph alone)."""
        return Scope(frozenset({self.a})), Scope(frozenset({self.a, self.b}))


Step = tuple[EdgeView, NodeView]


class ViewGraph:
    """Nodes and edges in memory (the views `FakeReader` holds), read as the adapters' Cypher
    reads them (these ports take no `asOf` cut): a node is seen when it exists, the caller may
    read its project and it has one of the labels asked for; a step over a relationship only
    reaches a node that is seen."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.by_id = {n.id: n for n in nodes}
        self.edges = list(edges)

    def node(self, node_id: str | None, scope: Scope, *labels: Label) -> NodeView | None:
        node = self.by_id.get(node_id) if node_id is not None else None
        if node is None or not scope.allows(node.project):
            return None
        return node if not labels or node.type in labels else None

    def every(self, scope: Scope, label: Label) -> list[NodeView]:
        """The nodes of `label` the caller may read, by id."""
        found = (self.node(n, scope, label) for n in sorted(self.by_id))
        return [n for n in found if n is not None]

    def targets(self, node_id: str, rel: Rel, scope: Scope, *labels: Label) -> list[Step]:
        """The `rel` relationships out of `node_id` and the seen nodes they end at."""
        edges = (e for e in self.edges if e.src == node_id and e.type == rel)
        found = ((e, self.node(e.dst, scope, *labels)) for e in edges)
        return [(e, n) for e, n in found if n is not None]

    def sources(self, node_id: str, rel: Rel, scope: Scope, *labels: Label) -> list[Step]:
        """The `rel` relationships into `node_id` and the seen nodes they start at."""
        edges = (e for e in self.edges if e.dst == node_id and e.type == rel)
        found = ((e, self.node(e.src, scope, *labels)) for e in edges)
        return [(e, n) for e, n in found if n is not None]

    def target_ids(self, node_id: str, rel: Rel, scope: Scope, *labels: Label) -> list[str]:
        """The ids of the seen nodes `node_id` has a `rel` relationship to, sorted."""
        return sorted(n.id for _, n in self.targets(node_id, rel, scope, *labels))


def _node_rows(graph: KeyedGraph) -> dict[Label, list[dict[str, Any]]]:
    rows: dict[Label, list[dict[str, Any]]] = defaultdict(list)
    for node in graph.nodes.values():
        stamp = f"{node.first_seen_at}|stamp"
        stamps = {storage.version_key(k): stamp for k in node.props}
        rows[Label(node.type)].append({**stored(node), **stamps})
    return rows


def _edge_rows(graph: KeyedGraph) -> dict[Rel, list[dict[str, Any]]]:
    rows: dict[Rel, list[dict[str, Any]]] = defaultdict(list)
    for edge in graph.edges:
        props = {**edge.props, storage.EDGE_VERSION: "stamp"}
        rows[Rel(edge.type)].append({"src": edge.src, "dst": edge.dst, "props": props})
    return rows


@contextmanager
def written(driver: Driver, graph: KeyedGraph) -> Iterator[KeyedGraph]:
    """`graph` in Neo4j in its stored form (one UNWIND per label and per relationship type),
    removed again afterwards."""
    try:
        for label, rows in _node_rows(graph).items():  # labels only ever from the graph model
            driver.execute_query(
                f"UNWIND $rows AS row CREATE (n:{Label.ENTITY}:{label}) SET n = row", rows=rows
            )
        for rel, rows in _edge_rows(graph).items():
            driver.execute_query(
                f"UNWIND $rows AS row MATCH (s:{Label.ENTITY} {{id: row.src}}) "
                f"MATCH (d:{Label.ENTITY} {{id: row.dst}}) "
                f"CREATE (s)-[r:{rel}]->(d) SET r = row.props",
                rows=rows,
            )
        yield graph
    finally:
        driver.execute_query(
            f"MATCH (n:{Label.ENTITY}) WHERE n.{storage.PROJECT} IN $projects DETACH DELETE n",
            projects=[graph.a, graph.b],
        )
