"""Done when: stop Kafka mid-run, keep emitting, start it again: every event arrives."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from client_kafka_helpers import assert_exactly_as_emitted, read_topic
from kafka.admin import KafkaAdminClient, NewTopic

from provgraph.client import Emitter, KafkaTransport
from provgraph.schemas import Event, RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

TOPIC = "provgraph.events"
SUBJECTS = 7
# An emit that waited on the broker would take the transport's timeout (3 s below); a queue
# hand-off takes microseconds. 1 s tells the two apart even on a loaded, shared machine
# (speed itself is measured in benchmarks/, not here).
EMIT_BUDGET_S = 1.0


def create_topic(bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=1)])
    finally:
        admin.close()


def event(emitter: Emitter, step: int) -> Event:
    point = MetricPoint(name="loss", step=step, value=1.0 / (step + 1))
    payload = RunMetricsLoggedPayload(run_id=f"run-{step % SUBJECTS}", points=(point,))
    return emitter.make(RunMetricsLogged, payload)


def wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def emit_timed(emitter: Emitter, steps: range, emitted: list[Event]) -> float:
    """Emit one event per step (a training loop's pace); return the slowest emit call."""
    slowest = 0.0
    for step in steps:
        item = event(emitter, step)
        started = time.perf_counter()
        emitter.emit(item)
        slowest = max(slowest, time.perf_counter() - started)
        emitted.append(item)
        time.sleep(0.002)
    return slowest


def test_events_survive_a_broker_crash_in_order_and_without_loss(
    private_kafka: Any, tmp_path: Path
) -> None:
    create_topic(private_kafka.bootstrap)
    transport = KafkaTransport(private_kafka.bootstrap, topic=TOPIC, timeout_s=3.0)
    emitter = Emitter(
        transport, spool_dir=tmp_path / "spool", project="outage", linger_s=0.05, retry_max_s=2.0
    )
    emitted: list[Event] = []

    assert emit_timed(emitter, range(0, 300), emitted) < EMIT_BUDGET_S
    private_kafka.kill()
    assert emit_timed(emitter, range(300, 800), emitted) < EMIT_BUDGET_S
    assert wait_for(lambda: emitter.spool.pending > 0, 15.0), "down: events must be spooled"
    private_kafka.start()
    assert emit_timed(emitter, range(800, 1000), emitted) < EMIT_BUDGET_S

    assert emitter.flush(timeout=60), f"{emitter.pending} events still pending"
    assert emitter.close(timeout=10)
    received = read_topic(private_kafka.bootstrap, TOPIC, expected=len(emitted))
    assert len({e.event_id for _, e in received}) == len(emitted)
    assert_exactly_as_emitted(emitted, received)
