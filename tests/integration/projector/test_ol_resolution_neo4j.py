"""Inferred inputs on the Neo4j writer: an OpenLineage chain without version facets, written in
several orders and batchings, gives the graph the in-memory fold gives (what `verify` checks)."""

from __future__ import annotations

import pytest
from neo4j import Driver
from support.ol_chain import Chain

from provgraph.ingest.graphread import read_graph
from provgraph.ingest.openlineage import wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.canonical import CanonicalGraph, diff
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", autouse=True)
def _schema(neo4j_driver: Driver) -> None:
    apply_schema(neo4j_driver)


def _write(driver: Driver, project: str, events: list[Event], batch: int) -> CanonicalGraph:
    driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)
    writer = GraphWriter(driver)
    changes = [project_event(e) for e in events]
    for at in range(0, len(changes), batch):
        writer.write(changes[at : at + batch])
    return read_graph(driver, project)


def _inferred(graph: CanonicalGraph) -> set[tuple[str, str]]:
    marker = '"inferred":"latest_version_at_run_start"'
    return {
        (line.partition(" -[")[0], line.rpartition("]-> ")[2])
        for line in graph.edges
        if " -[USED " in line and marker in line
    }


def test_every_order_and_batching_gives_the_in_memory_graph(
    neo4j_driver: Driver, project: str
) -> None:
    chain = Chain(project)
    expected = MemoryGraph().fold(chain.events()).canonical(project)
    assert _inferred(expected) == chain.expected_used()
    for n, order in enumerate(chain.orders(seeds=3)):
        for batch in (1, 4, len(order)):
            got = _write(neo4j_driver, project, order, batch)
            assert diff(expected, got) == [], (n, batch)


def test_a_declared_and_an_inferred_use_of_one_version_stay_apart(
    neo4j_driver: Driver, project: str
) -> None:
    chain = Chain(project)
    events = chain.events()
    declared = _declaring(chain)
    for order in ([*events, declared], [declared, *events]):
        expected = MemoryGraph().fold(order).canonical(project)
        got = _write(neo4j_driver, project, order, len(order))
        assert diff(expected, got) == []
        used = [line for line in got.edges if line.startswith(f"{chain.run(2)} -[USED ")]
        assert len(used) == 2, used  # the declared one, and the inferred one beside it


def _declaring(chain: Chain) -> Event:
    """Task 2 names clean@run-<r1> with a version facet on a RUNNING event."""
    facet = {
        "_producer": "https://t/1",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json",
        "datasetVersion": f"run-{chain.runs[0]}",
    }
    event = {
        "eventType": "RUNNING",
        "eventTime": "2024-05-01T12:22:00+00:00",
        "producer": "https://t/1",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": chain.runs[1]},
        "job": {"namespace": "pipelines", "name": "task2"},
        "inputs": [{"namespace": "s3://lake", "name": "clean", "facets": {"version": facet}}],
    }
    return wrap(event, chain.names)
