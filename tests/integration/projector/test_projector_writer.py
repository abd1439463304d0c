"""The Cypher writer against real Neo4j: the same graph as the in-memory model."""

from __future__ import annotations

import random

import pytest
from neo4j import Driver

from provgraph.ingest.constraints import apply_schema
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.memory import MemoryGraph
from provgraph.ingest.projection.workload import Workload
from provgraph.ingest.writer import GraphWriter, PartitionOffset


@pytest.fixture(scope="module", autouse=True)
def _schema(neo4j_driver: Driver) -> None:
    apply_schema(neo4j_driver)


def _batches(items: list[object], size: int) -> list[list[object]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_writer_builds_the_in_memory_graph_in_any_order_and_batching(
    neo4j_driver: Driver, project: str, seed: int
) -> None:
    events = Workload(project, seed).build(runs=5, datasets=3)
    expected = MemoryGraph().fold(events).canonical(project)
    rng = random.Random(seed)
    shuffled = [*events, *rng.sample(events, 8)]
    rng.shuffle(shuffled)
    writer = GraphWriter(neo4j_driver)
    for batch in _batches([project_event(e) for e in shuffled], rng.randint(1, 12)):
        writer.write(batch)  # type: ignore[arg-type]
    assert read_graph(neo4j_driver, project) == expected


def test_a_batch_written_twice_applies_once_and_offsets_only_move_forward(
    neo4j_driver: Driver, project: str
) -> None:
    changes = [project_event(e) for e in Workload(project, 7).build(runs=2)]
    writer = GraphWriter(neo4j_driver)
    topic = f"offsets-{project}"
    try:
        assert writer.write(changes, [PartitionOffset(topic, 0, 41)]) == len(changes)
        first = read_graph(neo4j_driver, project)
        assert writer.write(changes, [PartitionOffset(topic, 0, 12)]) == 0
        assert read_graph(neo4j_driver, project) == first
        assert writer.read_offsets(topic) == {0: 41}
    finally:
        neo4j_driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=topic)


def test_every_example_event_type_writes_the_in_memory_graph(
    neo4j_driver: Driver, project: str
) -> None:
    from pathlib import Path

    from provgraph.schemas import parse_event

    folder = Path(__file__).parents[3] / "schemas" / "examples" / "valid"
    texts = [p.read_text().replace("llm-pretrain", project) for p in sorted(folder.glob("*.json"))]
    events = [parse_event(text) for text in texts]
    changes = [project_event(e) for e in events]
    GraphWriter(neo4j_driver).write(changes[::-1])
    assert read_graph(neo4j_driver, project) == MemoryGraph().fold(events).canonical(project)
