"""The projector loop against real Kafka and Neo4j: exactly-once effect, poison records."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from kafka import KafkaConsumer
from neo4j import Driver
from projector_faults import HookedWriter, Hooks
from projector_processes import applied_records, fold_as_logged
from support.projection_workload import Workload

from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.verify import verify
from provgraph.schemas import Event

Produce = Callable[[IngestSettings, list[Event], list[bytes]], None]


class Crash(BaseException):
    """Stands for a process dying between the Neo4j commit and the Kafka commit."""


def dead_letters(settings: IngestSettings) -> list[dict[str, bytes]]:
    consumer = KafkaConsumer(
        settings.dead_letter_topic,
        bootstrap_servers=settings.kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=3000,
    )
    found = [dict(record.headers) for record in consumer]
    consumer.close()
    return found


def test_a_crash_between_neo4j_and_kafka_commits_neither_loses_nor_doubles(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce
) -> None:
    events = Workload(project, 11).build(runs=4, datasets=2)
    log = [*events, *events[:5]]  # a producer retry: the same event_ids again
    invalid = json.dumps({"event_type": "run.started", "project": project}).encode()
    produce(settings, log, [b"\xffnot json", invalid])

    commits = 0

    def crash_on_third_commit() -> None:
        nonlocal commits
        commits += 1
        if commits == 3:
            raise Crash

    hooked = HookedWriter(neo4j_driver, Hooks(after_neo4j_commit=crash_on_third_commit))
    with build_projector(settings, neo4j_driver, writer=hooked) as first, pytest.raises(Crash):
        first.run_until_idle(timeout_s=60)

    with build_projector(settings, neo4j_driver) as second:
        stats = second.run_until_idle(timeout_s=60)

    assert read_graph(neo4j_driver, project) == fold_as_logged(settings, events, project)
    assert verify(settings, neo4j_driver, project) == []
    assert stats.records < len(log) + 2  # the restart sought past what Neo4j already held
    stored = second.writer.read_offsets(settings.events_topic)
    assert sum(offset + 1 for offset in stored.values()) == len(log) + 2
    letters = dead_letters(settings)
    assert len(letters) == 2
    assert {h["error.class"] for h in letters} == {b"MalformedEventError", b"EventValidationError"}
    assert {h["provgraph-reason"] for h in letters} == {b"contract"}
    assert all(h["source.topic"] == settings.events_topic.encode() for h in letters)


def test_two_projectors_in_one_group_split_partitions_and_build_the_same_graph(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce
) -> None:
    import threading

    events = Workload(project, 5).build(runs=5, datasets=3)
    workers = [build_projector(settings, neo4j_driver) for _ in range(2)]
    threads = [threading.Thread(target=w.run) for w in workers]
    for thread in threads:
        thread.start()
    try:
        # Produce only once the group has settled on a split: both hold partitions, none
        # twice, all of them. A member that joined before it saw the topic's metadata gets
        # nothing and the group rebalances again when the metadata comes; producing before
        # that let one worker read everything.
        owned: list[set[int]] = []
        total, settled = 0, time.monotonic() + 60
        while time.monotonic() < settled:
            consumer = workers[0].source.consumer  # the Kafka source's own KafkaConsumer
            total = len(consumer.partitions_for_topic(settings.events_topic) or ())
            owned = [set(w.source.assigned()) for w in workers]
            if all(owned) and not owned[0] & owned[1] and len(owned[0] | owned[1]) == total:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the group did not settle on a split of {total}: {owned}")
        produce(settings, events, [])
        deadline = time.monotonic() + 60
        applied = lambda: applied_records(neo4j_driver, settings.events_topic)  # noqa: E731
        while applied() < len(events) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for worker in workers:
            worker.stop.set()
        for thread in threads:
            thread.join(timeout=30)
        for worker in workers:
            worker.close()
    assert read_graph(neo4j_driver, project) == fold_as_logged(settings, events, project)
    assert verify(settings, neo4j_driver, project) == []
    assert all(w.stats.records > 0 for w in workers), [w.stats for w in workers]
