"""Fault tests of the real `provgraph projector` process against real Kafka and Neo4j.

Each test crashes or starves a projector subprocess at a chosen moment and then checks the
exactly-once effect the design promises: after recovery the graph equals the in-memory fold
of the log, no event is applied twice, nothing is lost, nothing is dead-lettered.

Crash points are reached with a projector process that runs the production wiring with a
hooked writer (projector_faults.py, `--pause-at`): the process writes a marker file and sleeps
at the chosen point, and the test SIGKILLs it there, so the kill lands exactly in the window
that matters instead of somewhere a timer happens to hit.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient
from neo4j import Driver, GraphDatabase
from projector_processes import (
    ProjectorProcess,
    applied_records,
    fold_as_logged,
    produce,
    send,
    wait_for,
)
from support.projection_workload import Workload

from provgraph.core.eventlog import ensure_topics
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.verify import verify
from provgraph.schemas import Event


def _events(project: str, seed: int) -> tuple[list[Event], list[Event]]:
    """A workload of ~250 events and the log that carries it, with producer-retry duplicates."""
    events = Workload(project, seed).build(runs=30, datasets=4)
    return events, [*events, *events[:10]]


def _applied_event_count(driver: Driver, project: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (e:AppliedEvent {project: $p}) RETURN count(e) AS n", p=project
    )
    return int(records[0]["n"])


def _kafka_committed(settings: IngestSettings) -> dict[int, int]:
    admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    try:
        group = settings.projector_group
        found = admin.list_group_offsets(group)[group]
    finally:
        admin.close()
    return {tp.partition: meta.offset for tp, meta in found.items()}


def _dead_letter_count(settings: IngestSettings) -> int:
    consumer = KafkaConsumer(bootstrap_servers=settings.kafka_bootstrap)
    try:
        parts = consumer.partitions_for_topic(settings.dead_letter_topic) or set()
        tps = [TopicPartition(settings.dead_letter_topic, p) for p in parts]
        return sum(consumer.end_offsets(tps).values())
    finally:
        consumer.close()


def _assert_converged(
    settings: IngestSettings, driver: Driver, project: str, events: list[Event], log_len: int
) -> None:
    """Graph == fold of the log == fold of what was produced (stamped as the log received it);
    each event once; no DLQ."""
    assert verify(settings, driver, project) == []
    assert read_graph(driver, project) == fold_as_logged(settings, events, project)
    assert _applied_event_count(driver, project) == len({e.event_id for e in events})
    assert applied_records(driver, settings.events_topic) == log_len
    assert _dead_letter_count(settings) == 0


def _last_assignment(output: str) -> set[int]:
    found = re.findall(r"assigned partitions \[([\d, ]*)\]", output)
    return {int(p) for p in found[-1].split(",") if p.strip()} if found else set()


def _partitions(settings: IngestSettings) -> set[int]:
    consumer = KafkaConsumer(bootstrap_servers=settings.kafka_bootstrap)
    try:
        return set(consumer.partitions_for_topic(settings.events_topic) or ())
    finally:
        consumer.close()


def _split_between(partitions: set[int], *processes: ProjectorProcess) -> bool:
    """Every member holds partitions, none twice, and together all of the topic's."""
    held = [_last_assignment(process.output()) for process in processes]
    union = set().union(*held)
    disjoint = sum(len(h) for h in held) == len(union)
    return all(held) and disjoint and union == partitions


def _records_read(output: str) -> int:
    found = re.findall(r"projector: Stats\(batches=\d+, records=(\d+)", output)
    assert found, output
    return int(found[-1])


def _crash_and_restart(
    settings: IngestSettings,
    driver: Driver,
    project: str,
    make: Callable[[IngestSettings], ProjectorProcess],
    tmp_path: Path,
    pause_at: str,
    seed: int,
) -> tuple[dict[int, int], dict[int, int]]:
    """Kill a projector at `pause_at`, restart it until idle; return offsets at the kill.

    Returns (Neo4j offsets, Kafka committed offsets), both as "next offset to read".
    """
    events, log = _events(project, seed)
    produce(settings.kafka_bootstrap, settings.events_topic, log)
    marker = tmp_path / "paused"
    first = make(settings)
    first.start_pausing(pause_at, marker)
    wait_for(marker.exists, 45, f"the projector to pause at {pause_at}", first.output())
    first.kill()
    in_neo4j = {
        p: o + 1 for p, o in GraphWriter(driver).read_offsets(settings.events_topic).items()
    }
    in_kafka = _kafka_committed(settings)

    # The killed member stays in the group until its session times out (10 s here, see
    # `_env`), and the restart's first rebalance waits for that. The timeouts leave room.
    second = make(settings)
    second.start("--until-idle", "--timeout", "70")
    assert second.wait_exit(timeout_s=75) == 0, second.output()
    # The restart read exactly what Neo4j had not applied: it sought from Neo4j's offsets.
    assert _records_read(second.output()) == len(log) - sum(in_neo4j.values())
    _assert_converged(settings, driver, project, events, len(log))
    return in_neo4j, in_kafka


def test_kill_after_the_neo4j_commit_before_the_kafka_commit(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
    tmp_path: Path,
) -> None:
    in_neo4j, in_kafka = _crash_and_restart(
        settings, neo4j_driver, project, projector_process, tmp_path, "after_neo4j_commit:3", 13
    )
    # The kill landed in the window: Neo4j holds the third batch, Kafka's commit does not.
    assert sum(in_neo4j.values()) > sum(in_kafka.values()), (in_neo4j, in_kafka)


def test_kill_inside_the_neo4j_transaction(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
    tmp_path: Path,
) -> None:
    in_neo4j, in_kafka = _crash_and_restart(
        settings, neo4j_driver, project, projector_process, tmp_path, "inside_neo4j_tx:3", 17
    )
    # The open transaction was rolled back: Neo4j and Kafka both stop after batch two.
    assert in_neo4j == in_kafka
    assert sum(in_neo4j.values()) > 0


def test_neo4j_down_for_20s_mid_stream_loses_nothing_and_dead_letters_nothing(
    settings: IngestSettings,
    project: str,
    private_neo4j: Any,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    endpoint = private_neo4j.neo4j
    settings = settings.model_copy(
        update={
            "neo4j_uri": endpoint.uri,
            "neo4j_user": endpoint.user,
            "neo4j_password": endpoint.password,
        }
    )
    events, log = _events(project, seed=31)
    half = len(log) // 2
    with GraphDatabase.driver(endpoint.uri, auth=(endpoint.user, endpoint.password)) as driver:
        produce(settings.kafka_bootstrap, settings.events_topic, log[:half])
        projector = projector_process(settings)
        projector.start()
        topic = settings.events_topic
        wait_for(
            lambda: applied_records(driver, topic) == half, 60, "first half", projector.output()
        )

        down_at = time.monotonic()
        private_neo4j.stop()
        # Produced while Neo4j is down: the projector polls these and must hold them, retrying.
        produce(settings.kafka_bootstrap, topic, log[half:])
        # ~10 s down plus the restart's own ~10 s: Neo4j is unreachable for about 20 s.
        time.sleep(max(0.0, 10 - (time.monotonic() - down_at)))
        private_neo4j.start()

        # Bounds for a loaded machine, not timings: the driver's own retries (up to 30 s)
        # and the projector's backoff (up to 10 s) come after Neo4j's restart.
        wait_for(
            lambda: applied_records(driver, topic) == len(log), 90, "recovery", projector.output()
        )
        assert projector.alive(), projector.output()
        # The outage was seen and retried: by the driver's own transaction retries (up to
        # 30 s) first, then by the projector's backoff loop once those give up.
        retried = ("Transaction failed and will be retried", "Neo4j unavailable")
        assert any(line in projector.output() for line in retried), projector.output()
        _assert_converged(settings, driver, project, events, len(log))


def test_kafka_restart_mid_stream_loses_nothing_and_dead_letters_nothing(
    neo4j_driver: Driver,
    neo4j_endpoint: Any,
    project: str,
    unique_name: str,
    private_kafka: Any,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    settings = IngestSettings(
        kafka_bootstrap=private_kafka.bootstrap,
        events_topic=unique_name,
        dead_letter_topic=f"{unique_name}.dlq",
        topic_partitions=3,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        projector_group=f"{unique_name}-group",
    )
    ensure_topics(settings)
    events, log = _events(project, seed=47)
    half = len(log) // 2
    topic = settings.events_topic
    # One producer across the restart, as a real emitter would be: it must reconnect (within
    # a second of the broker being back, like the projector, so that the time measured below
    # is the projector's).
    producer = KafkaProducer(
        bootstrap_servers=settings.kafka_bootstrap,
        acks="all",
        retries=10,
        reconnect_backoff_max_ms=1000,
    )
    projector = projector_process(settings)
    try:
        send(producer, topic, log[:half])
        projector.start()
        done = lambda: applied_records(neo4j_driver, topic) == half  # noqa: E731
        wait_for(done, 30, "first half", projector.output())

        private_kafka.stop()
        private_kafka.start()
        send(producer, topic, log[half:])
        sent_at = time.monotonic()

        # Within ~2 s once the broker is back (kafka-python's own reconnect backoff, up to
        # 30 s, used to leave the projector idle for 3-25 s here); the limit allows for a
        # loaded machine.
        done = lambda: applied_records(neo4j_driver, topic) == len(log)  # noqa: E731
        wait_for(done, 30, "recovery", projector.output())
        print(f"\nkafka restart: the projector resumed {time.monotonic() - sent_at:.1f}s after")
        assert projector.alive(), projector.output()
        _assert_converged(settings, neo4j_driver, project, events, len(log))
    finally:
        producer.close(timeout=5)
        neo4j_driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=topic)


def test_two_projector_processes_in_one_group_split_the_work(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    """Scale-out: two OS processes in one consumer group share the partitions of the log and
    build the same graph one would, each event applied once."""
    events, log = _events(project, seed=53)
    first, second = projector_process(settings), projector_process(settings)
    first.start()
    second.start()
    # Produce only once the group has settled on a full split between both members: a member
    # that joins late would otherwise find the other one already done with the whole log.
    partitions = _partitions(settings)
    settled = lambda: _split_between(partitions, first, second)  # noqa: E731
    outputs = lambda: first.output() + second.output()  # noqa: E731
    wait_for(settled, 60, "a split between both projectors", outputs)
    produce(settings.kafka_bootstrap, settings.events_topic, log)
    done = lambda: applied_records(neo4j_driver, settings.events_topic) == len(log)  # noqa: E731
    wait_for(done, 60, "both projectors", first.output() + second.output())
    for process in (first, second):
        assert process.proc is not None
        process.proc.terminate()  # a clean stop prints the records it read
        assert process.wait_exit(30) == 0
    read = [_records_read(process.output()) for process in (first, second)]
    assert all(count > 0 for count in read), read
    assert sum(read) >= len(log)
    _assert_converged(settings, neo4j_driver, project, events, len(log))


def test_a_projector_started_while_kafka_is_down_waits_for_it(
    neo4j_driver: Driver,
    neo4j_endpoint: Any,
    project: str,
    unique_name: str,
    private_kafka: Any,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    settings = IngestSettings(
        kafka_bootstrap=private_kafka.bootstrap,
        events_topic=unique_name,
        dead_letter_topic=f"{unique_name}.dlq",
        topic_partitions=2,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        projector_group=f"{unique_name}-group",
    )
    events, log = _events(project, seed=53)
    private_kafka.stop()
    projector = projector_process(settings)
    try:
        projector.start()
        wait_for(lambda: "Kafka unavailable" in projector.output(), 60, "a wait", projector.output)
        assert projector.alive(), projector.output()
        private_kafka.start()
        # The projector creates the topics once Kafka is back, then folds what arrives.
        wait_for(lambda: unique_name in _topics(settings), 60, "topics", projector.output())
        producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
        try:
            send(producer, settings.events_topic, log)
        finally:
            producer.close(timeout=5)
        done = lambda: applied_records(neo4j_driver, unique_name) == len(log)  # noqa: E731
        wait_for(done, 60, "projection", projector.output())
        _assert_converged(settings, neo4j_driver, project, events, len(log))
    finally:
        if not private_kafka.server.is_ready():
            private_kafka.start()
        neo4j_driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=unique_name)


def _topics(settings: IngestSettings) -> set[str]:
    try:
        admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    except Exception:  # not up yet
        return set()
    try:
        return set(admin.list_topics())
    finally:
        admin.close()
