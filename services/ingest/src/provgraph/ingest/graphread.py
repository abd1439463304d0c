"""Read the projected graph back from Neo4j into the canonical form (for verify and hashes)."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from provgraph.ingest.ports import GraphView
from provgraph.ingest.projection.canonical import CanonicalGraph, event_key
from provgraph.schemas.graph import APPLIED_EVENT_LABEL

_SCOPE = f"(n:Entity OR n:{APPLIED_EVENT_LABEL}) AND ($project IS NULL OR n.project = $project)"

_NODES = f"""
MATCH (n) WHERE {_SCOPE}
RETURN labels(n) AS labels, properties(n) AS props
"""

# Relationships leaving the scope's nodes: lineage edges and the events' TOUCHED links.
_EDGES = f"""
MATCH (n) WHERE {_SCOPE}
MATCH (n)-[r]->(m)
RETURN coalesce(n.id, 'event:' + n.event_id) AS src, type(r) AS rel,
       coalesce(m.id, 'event:' + m.event_id) AS dst, properties(r) AS props
"""


def _key(props: dict[str, Any]) -> str:
    return str(props["id"]) if "id" in props else event_key(str(props["event_id"]))


def read_graph(
    driver: Driver, project: str | None = None, database: str = "neo4j"
) -> CanonicalGraph:
    """The canonical form of the Neo4j graph, or of one project's part of it."""
    graph = CanonicalGraph()
    with driver.session(database=database) as session:
        for record in session.run(_NODES, project=project):
            props = dict(record["props"])
            graph.add_node(_key(props), list(record["labels"]), props)
        for record in session.run(_EDGES, project=project):
            graph.add_edge(record["src"], record["rel"], record["dst"], dict(record["props"]))
    return graph.finish()


class Neo4jGraph(GraphView):
    """The graph view of a Neo4j database: what `verify` compares with the log's fold."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def canonical(self, project: str | None = None) -> CanonicalGraph:
        """The canonical form of the graph, or of one project's part of it."""
        return read_graph(self.driver, project, self.database)
