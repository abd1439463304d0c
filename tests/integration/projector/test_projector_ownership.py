"""Ownership against real Kafka and Neo4j: the owners lookup and claim rule of the Cypher writer
(the contract the in-memory graph passes too), and the projector dead-lettering events written
straight to Kafka that change another project's run, checkpoint or evaluation."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from contracts.owners import OwnersContract
from kafka import KafkaConsumer, KafkaProducer
from neo4j import Driver

from provgraph.ingest.graphread import Neo4jGraph, read_graph
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay
from provgraph.ingest.tools.verify import graph_hash, verify
from provgraph.schemas import (
    CheckpointDeleted,
    CheckpointSaved,
    EntityDeleted,
    Event,
    ModelVersionEvaluated,
    RunCompleted,
    RunFailed,
    RunStarted,
    checkpoint_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import CheckpointDeletedPayload, CheckpointSavedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.governance import EntityDeletedPayload
from provgraph.schemas.events.model import ModelVersionEvaluatedPayload
from provgraph.schemas.events.run import RunCompletedPayload, RunError, RunFailedPayload

Produce = Callable[[IngestSettings, list[Event], list[bytes]], None]


@pytest.fixture(scope="module", autouse=True)
def _schema(neo4j_driver: Driver) -> None:
    apply_schema(neo4j_driver)


class TestOwnersOnNeo4j(OwnersContract):
    @pytest.fixture(autouse=True)
    def _bind(self, neo4j_driver: Driver, unique_name: str) -> Iterator[None]:
        self.driver, self.project = neo4j_driver, unique_name[:60]
        yield
        self._wipe()

    def _wipe(self) -> None:
        projects = [f"{self.project}a", f"{self.project}b"]
        self.driver.execute_query("MATCH (n) WHERE n.project IN $ps DETACH DELETE n", ps=projects)

    def fresh(self) -> tuple[GraphWriter, Neo4jGraph]:
        self._wipe()
        return GraphWriter(self.driver), Neo4jGraph(self.driver)


# ---- the projector -----------------------------------------------------------------------------


def _ev(cls: type[Event], project: str, payload: object) -> Event:
    return cls.create(project=project, producer="https://t/1", actor="user:t", payload=payload)


def _takeovers(a: str, key: str, evaluation: str) -> list[Event]:
    run, checkpoint = run_id(key), checkpoint_id(key, 100)
    error = RunError(type="X", message="forced")
    return [
        _ev(RunStarted, a, RunStartedPayload(run_id=key, params={"lr": 9})),
        _ev(RunCompleted, a, RunCompletedPayload(run_id=key, conclusion="forced")),
        _ev(RunFailed, a, RunFailedPayload(run_id=key, conclusion="forced", error=error)),
        _ev(CheckpointSaved, a, CheckpointSavedPayload(run_id=key, step=100, uri="s3://evil/")),
        _ev(CheckpointSaved, a, CheckpointSavedPayload(run_id=key, step=200, uri="s3://evil/")),
        _ev(CheckpointDeleted, a, CheckpointDeletedPayload(checkpoint=checkpoint)),
        _ev(EntityDeleted, a, EntityDeletedPayload(entity=run, reason="takedown")),
        _ev(EntityDeleted, a, EntityDeletedPayload(entity=evaluation, reason="takedown")),
        _ev(
            ModelVersionEvaluated,
            a,
            ModelVersionEvaluatedPayload(
                evaluation_id=evaluation.removeprefix("evaluation:"),
                model_version=f"model:{a}/m@1",
                suite="forged",
                passed=True,
            ),
        ),
    ]


def _victim(b: str, key: str, evaluation: str) -> list[Event]:
    return [
        _ev(RunStarted, b, RunStartedPayload(run_id=key, params={"lr": 0.001})),
        _ev(CheckpointSaved, b, CheckpointSavedPayload(run_id=key, step=100, uri="s3://b/100/")),
        _ev(
            ModelVersionEvaluated,
            b,
            ModelVersionEvaluatedPayload(
                evaluation_id=evaluation.removeprefix("evaluation:"),
                model_version=f"model:{b}/m@1",
                suite="real",
                passed=False,
            ),
        ),
    ]


def _dead_letters(settings: IngestSettings) -> list[dict[str, bytes]]:
    consumer = KafkaConsumer(
        settings.dead_letter_topic,
        bootstrap_servers=settings.kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=3000,
    )
    found = [dict(record.headers) for record in consumer]
    consumer.close()
    return found


@pytest.fixture()
def pair(project: str, neo4j_driver: Driver) -> Iterator[tuple[str, str]]:
    """Two projects of this test: the attacker's and the victim's."""
    a, b = f"{project[:60]}-a", f"{project[:60]}-b"
    yield a, b
    neo4j_driver.execute_query("MATCH (n) WHERE n.project IN [$a, $b] DETACH DELETE n", a=a, b=b)


def _produce_to(settings: IngestSettings, partition: int, events: list[Event]) -> None:
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    for event in events:
        producer.send(
            settings.events_topic,
            key=event.kafka_key(),
            value=event.to_json_bytes(),
            partition=partition,
        )
    producer.flush()
    producer.close()


def test_cross_project_writes_are_dead_lettered_and_projection_moves_on(
    settings: IngestSettings, neo4j_driver: Driver, pair: tuple[str, str]
) -> None:
    a, b = pair
    key, evaluation = f"victim-{uuid.uuid4().hex[:8]}", f"evaluation:{uuid.uuid4()}"
    # The victim in the last partition, the attacks later in the first one: a reader going
    # partition by partition would meet the attacks first.
    _produce_to(settings, 2, _victim(b, key, evaluation))
    with build_projector(settings, neo4j_driver) as first:
        first.run_until_idle(timeout_s=60)
    before = read_graph(neo4j_driver, b)

    attacks = _takeovers(a, key, evaluation)
    marker = _ev(RunStarted, a, RunStartedPayload(run_id=f"marker-{uuid.uuid4().hex[:8]}"))
    _produce_to(settings, 0, [*attacks, marker])
    with build_projector(settings, neo4j_driver) as second:
        second.run_until_idle(timeout_s=60)

    assert read_graph(neo4j_driver, b) == before
    assert read_graph(neo4j_driver, a).nodes[marker.subject]["props"]["project"] == a
    letters = _dead_letters(settings)
    assert len(letters) == len(attacks)
    assert {h["provgraph-reason"] for h in letters} == {b"ownership"}
    live = {p: graph_hash(neo4j_driver, p) for p in (a, b)}
    for project in (a, b):
        assert verify(settings, neo4j_driver, project) == []

    # A rebuild reads the log in its own order: it refuses the same records.
    neo4j_driver.execute_query("MATCH (n) WHERE n.project IN [$a, $b] DETACH DELETE n", a=a, b=b)
    neo4j_driver.execute_query(
        "MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=settings.events_topic
    )
    records, applied, refused = replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert (records, applied, refused) == (len(attacks) + 4, 4, len(attacks))
    assert {p: graph_hash(neo4j_driver, p) for p in (a, b)} == live


def test_out_of_order_events_of_one_project_all_apply_and_replay_hashes_the_same(
    settings: IngestSettings, neo4j_driver: Driver, pair: tuple[str, str], produce: Produce
) -> None:
    _, b = pair
    key, evaluation = f"ooo-{uuid.uuid4().hex[:8]}", f"evaluation:{uuid.uuid4()}"
    done = _ev(RunCompleted, b, RunCompletedPayload(run_id=key, conclusion="ok"))
    deleted = _ev(
        CheckpointDeleted, b, CheckpointDeletedPayload(checkpoint=checkpoint_id(key, 100))
    )
    events = [done, deleted, *reversed(_victim(b, key, evaluation))]
    produce(settings, events, [])
    with build_projector(settings, neo4j_driver) as projector:
        stats = projector.run_until_idle(timeout_s=60)
    assert stats.applied == len(events)
    assert _dead_letters(settings) == []
    graph = read_graph(neo4j_driver, b)
    run = graph.nodes[run_id(key)]["props"]
    assert (run["status"], run["placeholder"], run["claimed"]) == ("completed", False, True)
    live = graph_hash(neo4j_driver, b)
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=b)
    neo4j_driver.execute_query(
        "MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=settings.events_topic
    )
    replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert graph_hash(neo4j_driver, b) == live
