"""No record stops projection, against real Kafka and Neo4j: a write Neo4j refuses, hostile
records in the log, conflicting copies of an event_id, the broker's append time, and parked
dead letters appended back to the log."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient
from neo4j import Driver
from projector_processes import applied_records, fold_as_logged
from support.projection_story import Story
from support.projection_workload import Workload

from provgraph.cli import main
from provgraph.core.eventlog import ensure_log_append_time, ensure_topics
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.ports import PartitionOffset
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projection.mutations import NodeUpsert, Versioned
from provgraph.ingest.projector.redrive import redrive_parked
from provgraph.ingest.projector.run import build_projector, run_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.replay import fold_log, replay
from provgraph.ingest.tools.verify import graph_hash, verify
from provgraph.schemas import Event
from provgraph.schemas.graph import Label

Produce = Callable[[IngestSettings, list[Event], list[bytes]], None]
Letter = tuple[bytes | None, bytes | None, dict[str, bytes]]


def dead_letters(settings: IngestSettings) -> list[Letter]:
    consumer = KafkaConsumer(
        settings.dead_letter_topic,
        bootstrap_servers=settings.kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=3000,
    )
    try:
        return [(r.key, r.value, dict(r.headers)) for r in consumer]
    finally:
        consumer.close()


def by_reason(letters: list[Letter]) -> dict[bytes, list[bytes | None]]:
    found: dict[bytes, list[bytes | None]] = {}
    for _, value, headers in letters:
        found.setdefault(headers["provgraph-reason"], []).append(value)
    return found


def spoiled(change: EventMutations, value: Any) -> EventMutations:
    """`change` with one more node whose property Neo4j refuses to store (the store check of
    the parse step is bypassed on purpose: the refusal comes from Neo4j itself)."""
    bad = NodeUpsert(
        f"run:{uuid.uuid4()}",
        Label.RUN,
        change.record.project,
        True,
        change.record.occurred_at,
        change.record.occurred_at,
        lww={"bad": Versioned("1", value)},
    )
    return EventMutations(change.record, (*change.mutations, bad))


class SpoilingWriter(GraphWriter):
    """The Neo4j writer, with the mutations of chosen events spoiled as `spoiled` does."""

    def __init__(self, driver: Driver, spoil: dict[str, Any]) -> None:
        super().__init__(driver)
        self.spoil = spoil

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        out = [
            spoiled(c, self.spoil[c.record.event_id]) if c.record.event_id in self.spoil else c
            for c in changes
        ]
        return super().write(out, offsets)


def test_a_write_neo4j_refuses_is_isolated_dead_lettered_and_the_rest_applied(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce
) -> None:
    events = Workload(project, 31).build(runs=4, datasets=2)
    produce(settings, events, [])
    chosen = {str(events[4].event_id): ({"a": 1},), str(events[11].event_id): ("a", 1)}
    writer = SpoilingWriter(neo4j_driver, chosen)
    projector = build_projector(settings, neo4j_driver, writer=writer)
    try:
        stats = projector.run_until_idle(timeout_s=60)
    finally:
        projector.close()

    letters = dead_letters(settings)
    assert sorted(json.loads(v or b"")["event_id"] for _, v, _ in letters) == sorted(chosen)
    assert {h["provgraph-reason"] for _, _, h in letters} == {b"store_rejected"}
    errors = b" ".join(h["provgraph-error"] for _, _, h in letters)
    assert b"CypherTypeError" in errors and b"Property values" in errors, errors
    assert (stats.applied, stats.dead_lettered) == (len(events) - 2, 2)
    assert applied_records(neo4j_driver, settings.events_topic) == len(events)
    kept = [e for e in events if str(e.event_id) not in chosen]
    assert read_graph(neo4j_driver, project) == fold_as_logged(settings, kept, project)


def _hostile(project: str, base: Event) -> dict[str, bytes]:
    """Records that once stopped projection or that must have no effect, by expected reason."""
    text = base.to_json_bytes().decode()
    data = json.loads(text)
    future = {**data, "event_id": str(uuid.uuid4())}
    future["occurred_at"] = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    return {
        "deep": text.replace('"lr":0.1', '"lr":' + "[" * 100_000 + "]" * 100_000).encode(),
        "bigint": text.replace('"lr":0.1', '"lr":' + str(2**70)).encode(),
        "edge": text.replace("2024-05-01T00:00:00Z", "9999-12-31T23:59:59-01:00").encode(),
        "bytes": b"\xff\xfe not text",
        "unknown_type": json.dumps({**data, "event_type": "run.teleported"}).encode(),
        "unsupported_version": json.dumps({**data, "schema_version": 99}).encode(),
        "conflict": json.dumps({**data, "actor": "user:mallory"}).encode(),
        "occurred_at_in_future": json.dumps(future).encode(),
    }


def test_hostile_records_are_dead_lettered_with_their_reasons_and_replay_survives_them(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    produce: Produce,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = Story(project)
    events = [s.started(), s.completed(5, 2), s.checkpoint_saved(3, 3), s.started()]
    hostile = _hostile(project, events[0])
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    for event in events[:2]:
        producer.send(settings.events_topic, key=event.kafka_key(), value=event.to_json_bytes())
    for value in hostile.values():  # keyed as the run's events: after the first copy
        producer.send(settings.events_topic, key=events[0].kafka_key(), value=value)
    for event in events[2:]:
        producer.send(settings.events_topic, key=event.kafka_key(), value=event.to_json_bytes())
    producer.flush()
    producer.close()

    # The production entry point (`provgraph projector --until-idle`, what `make up` starts).
    monkeypatch.setattr("signal.signal", lambda *_args: None)
    stats = run_projector(settings, until_idle=True, timeout_s=60)
    assert (stats.applied, stats.dead_lettered) == (3, len(hostile))

    found = by_reason(dead_letters(settings))
    for reason in ("unknown_type", "unsupported_version", "conflict", "occurred_at_in_future"):
        assert found.pop(reason.encode()) == [hostile[reason]], reason
    refused = sorted(v or b"" for values in found.values() for v in values)
    assert set(found) <= {b"contract", b"store_rejected"}
    assert refused == sorted(hostile[k] for k in ("deep", "bigint", "edge", "bytes"))

    assert verify(settings, neo4j_driver, project) == []
    live = graph_hash(neo4j_driver, project)
    assert read_graph(neo4j_driver, project) == fold_as_logged(settings, events, project)
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)
    records, applied, skipped = replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert (records, applied, skipped) == (len(events) + len(hostile), 3, len(hostile))
    assert graph_hash(neo4j_driver, project) == live


@pytest.fixture()
def fresh_events_topic(settings: IngestSettings) -> Iterator[IngestSettings]:
    """The settings with an event topic that does not exist yet (removed afterwards)."""
    fresh = settings.model_copy(update={"events_topic": f"{settings.events_topic}-fresh"})
    yield fresh
    admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    try:
        admin.delete_topics([fresh.events_topic])
    finally:
        admin.close()


def _timestamp_type(bootstrap: str, topic: str) -> Any:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        wanted = ConfigResource(ConfigResourceType.TOPIC, topic, ["message.timestamp.type"])
        found = admin.describe_configs([wanted], config_filter="all")
        return found["topic"][topic]["message.timestamp.type"]["value"]
    finally:
        admin.close()


def test_the_event_topic_takes_the_brokers_time_so_no_producer_can_choose_it(
    settings: IngestSettings, fresh_events_topic: IngestSettings
) -> None:
    bootstrap = settings.kafka_bootstrap
    # An existing topic (made with the broker's default, CreateTime) is changed once.
    assert _timestamp_type(bootstrap, settings.events_topic) == "CreateTime"
    assert ensure_topics(settings) == []
    assert _timestamp_type(bootstrap, settings.events_topic) == "LogAppendTime"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        assert ensure_log_append_time(admin, settings.events_topic) is False  # already so
    finally:
        admin.close()
    # A new one is made so, and keeps every record forever.
    assert ensure_topics(fresh_events_topic) == [fresh_events_topic.events_topic]
    assert _timestamp_type(bootstrap, fresh_events_topic.events_topic) == "LogAppendTime"

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    producer.send(fresh_events_topic.events_topic, b"v", key=b"k", timestamp_ms=1000).get(30)
    producer.close()
    consumer = KafkaConsumer(
        fresh_events_topic.events_topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=5000,
    )
    (record,) = list(consumer)
    consumer.close()
    now_ms = datetime.now(UTC).timestamp() * 1000
    assert record.timestamp_type == 1 and abs(record.timestamp - now_ms) < 120_000


def _letter(value: bytes, reason: bytes, offset: int) -> tuple[bytes, bytes, list[Any]]:
    headers = [
        ("provgraph-principal", b"principal:user:alice"),
        ("source.topic", b"provgraph.events"),
        ("source.partition", b"0"),
        ("source.offset", str(offset).encode()),
        ("provgraph-reason", reason),
        ("provgraph-error", b"parked by an older reader"),
    ]
    return b"run-key", value, headers


def test_parked_letters_understood_now_are_appended_again_once_and_applied_once(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    s = Story(project)
    known, other = s.started(), s.completed(5, 2)
    unknown = json.dumps({**json.loads(known.to_json_bytes()), "event_type": "x.y"}).encode()
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    letters = [
        _letter(known.to_json_bytes(), b"unknown_type", 1),  # parked by an older reader
        _letter(unknown, b"unknown_type", 2),  # still unknown
        _letter(other.to_json_bytes(), b"store_rejected", 3),  # not parked
    ]
    for key, value, headers in letters:
        producer.send(settings.dead_letter_topic, value, key=key, headers=headers)
    producer.flush()
    producer.close()

    first = redrive_parked(settings)
    assert (first.read, first.matched, first.appended, first.left) == (3, 2, 1, 1)
    again = redrive_parked(settings)  # a restart: only what came since is read
    assert (again.read, again.appended) == (0, 0)
    appended = [(k, v, h) for batch in _events_log(settings) for k, v, h in batch]
    assert appended == [
        (b"run-key", known.to_json_bytes(), {"provgraph-principal": b"principal:user:alice"})
    ]

    env = {
        "PROVGRAPH_KAFKA_BOOTSTRAP": settings.kafka_bootstrap,
        "PROVGRAPH_EVENTS_TOPIC": settings.events_topic,
        "PROVGRAPH_DEAD_LETTER_TOPIC": settings.dead_letter_topic,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["deadletters", "list"]) == 0
    listed = capsys.readouterr().out
    assert "store_rejected" in listed and "3 dead letters in" in listed
    assert main(["deadletters", "show", "--reason", "store_rejected"]) == 0
    assert "parked by an older reader" in capsys.readouterr().out
    # On demand, any reason: the store_rejected one, and the parked one once more.
    assert (
        main(["deadletters", "redrive", "--reason", "store_rejected", "--reason", "unknown_type"])
        == 0
    )
    assert "redrive: 2 of 3 dead letters" in capsys.readouterr().out

    projector = build_projector(settings, neo4j_driver)
    try:
        stats = projector.run_until_idle(timeout_s=60)
    finally:
        projector.close()
    assert (stats.records, stats.applied, stats.dead_lettered) == (3, 2, 0)  # one duplicate
    graph = MemoryGraph()
    for change in fold_log(settings):
        graph.apply(change)
    assert read_graph(neo4j_driver, project) == graph.canonical(project)
    applied = graph.events[str(known.event_id)]
    assert applied.principal == "principal:user:alice"


def _events_log(settings: IngestSettings) -> list[list[Letter]]:
    consumer = KafkaConsumer(
        settings.events_topic,
        bootstrap_servers=settings.kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=3000,
    )
    try:
        return [[(r.key, r.value, dict(r.headers)) for r in consumer]]
    finally:
        consumer.close()
