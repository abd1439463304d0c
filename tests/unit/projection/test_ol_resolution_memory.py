"""Inferred inputs in the in-memory graph: an OpenLineage chain without version facets folds
to the same graph in any order and batching, its tasks linked by inferred USED edges."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.ol_chain import Chain

from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.canonical import CanonicalGraph
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event

pytestmark = pytest.mark.unit

INFERRED = {"role": "input", "inferred": "latest_version_at_run_start"}


def fold(events: list[Event], batch: int = 1) -> CanonicalGraph:
    graph = MemoryGraph()
    changes = [project_event(e) for e in events]
    for at in range(0, len(changes), batch):
        graph.write(changes[at : at + batch])
    return graph.canonical()


def relations(graph: CanonicalGraph, rel: str) -> list[tuple[str, dict[str, Any], str]]:
    found = []
    for line in graph.edges:
        src, _, rest = line.partition(" -[")
        kind, _, rest = rest.partition(" ")
        props, _, dst = rest.rpartition("]-> ")
        if kind == rel:
            found.append((src, json.loads(props), dst))
    return found


def inferred(graph: CanonicalGraph) -> dict[tuple[str, str], str]:
    """(run, version) -> first_seen_at of every inferred USED edge."""
    out = {}
    for src, props, dst in relations(graph, "USED"):
        assert {k: v for k, v in props.items() if k != "first_seen_at"} == INFERRED
        out[(src, dst)] = props["first_seen_at"]
    return out


def test_the_chain_is_linked_by_inferred_used_edges_at_each_run_start() -> None:
    chain = Chain("llm")
    graph = fold(chain.events())
    assert inferred(graph) == {
        (chain.run(1), "dataset:llm/raw@v1"): "2024-05-01T12:10:00.000000Z",
        (chain.run(2), chain.output(1)): "2024-05-01T12:20:00.000000Z",
        (chain.run(3), chain.output(2)): "2024-05-01T12:30:00.000000Z",
    }
    reads = {(src, dst) for src, props, dst in relations(graph, "READS")}
    assert reads == {
        (chain.run(1), chain.dataset("raw")),
        (chain.run(2), chain.dataset("clean")),
        (chain.run(3), chain.dataset("features")),
    }
    assert not [key for key in graph.nodes if key.endswith("@unversioned")]


def test_every_order_and_batching_gives_the_same_graph() -> None:
    chain = Chain("llm")
    expected = fold(chain.events())
    for order in chain.orders(seeds=12):
        for batch in (1, 3, len(order)):
            assert fold(order, batch) == expected, ([e.event_type for e in order], batch)


def test_a_reader_before_its_writer_is_linked_once_the_writer_arrives() -> None:
    chain = Chain("llm")
    events = chain.events()
    readers_first = [e for e in events if e.subject == chain.run(3)] + events
    graph = MemoryGraph()
    graph.write([project_event(e) for e in readers_first[:2]])
    assert inferred(graph.canonical()) == {}  # read, version not known yet
    graph.write([project_event(e) for e in readers_first[2:]])
    assert set(inferred(graph.canonical())) == chain.expected_used()


def test_a_version_created_before_the_start_arrives_late_and_is_linked_then() -> None:
    chain = Chain("llm")
    events = chain.events()
    raw_v1, raw_v2 = events[0], events[-1]
    graph = MemoryGraph()
    graph.write([project_event(e) for e in events[1:-1]])
    assert (chain.run(1), "dataset:llm/raw@v1") not in inferred(graph.canonical())
    graph.write([project_event(raw_v2)])  # created after the run started: not what it read
    assert [u for u in inferred(graph.canonical()) if u[0] == chain.run(1)] == []
    graph.write([project_event(raw_v1)])
    assert set(inferred(graph.canonical())) == chain.expected_used()


def test_folding_twice_changes_nothing() -> None:
    chain = Chain("llm")
    once = fold(chain.events())
    assert fold(chain.events() + chain.events()[::-1]) == once


def test_a_declared_use_of_the_inferred_version_stays_beside_it() -> None:
    from provgraph.ingest.openlineage import wrap

    chain = Chain("llm")
    facet = {
        "_producer": "https://t/1",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json",
        "datasetVersion": f"run-{chain.runs[0]}",
    }
    declared = wrap(
        {
            "eventType": "RUNNING",
            "eventTime": "2024-05-01T12:22:00+00:00",
            "producer": "https://t/1",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": chain.runs[1]},
            "job": {"namespace": "pipelines", "name": "task2"},
            "inputs": [{"namespace": "s3://lake", "name": "clean", "facets": {"version": facet}}],
        },
        chain.names,
    )
    graph = fold([*chain.events(), declared])
    assert graph == fold([declared, *chain.events()])
    used = [(p, d) for s, p, d in relations(graph, "USED") if s == chain.run(2)]
    assert sorted(p.get("inferred", "") for p, d in used) == ["", "latest_version_at_run_start"]
    assert {d for _, d in used} == {chain.output(1)}
