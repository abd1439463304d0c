"""Verify: fold the whole log in memory and compare it with Neo4j; the graph hash."""

from __future__ import annotations

from neo4j import Driver

from provgraph.ingest.graphread import Neo4jGraph
from provgraph.ingest.projection.canonical import CanonicalGraph, diff
from provgraph.ingest.screening import disciplined, owned
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.replay import fold_log


def expected_graph(settings: IngestSettings, project: str | None = None) -> CanonicalGraph:
    """The graph the log implies, folded in memory by the same pure projection."""
    graph = MemoryGraph()
    for change in fold_log(settings):
        # The projector's screens, event by event: ownership, then the records discipline.
        if owned(graph, [change]) and disciplined(graph, [change]):
            graph.apply(change)
    return graph.canonical(project)


def verify(settings: IngestSettings, driver: Driver, project: str | None = None) -> list[str]:
    """Differences between the log's fold and Neo4j; empty when they agree."""
    expected = expected_graph(settings, project)
    return diff(expected, Neo4jGraph(driver, settings.neo4j_database).canonical(project))


def graph_hash(driver: Driver, project: str | None = None, database: str = "neo4j") -> str:
    """A canonical sha256 of the Neo4j graph (nodes, relationships, properties)."""
    return Neo4jGraph(driver, database).canonical(project).digest()
