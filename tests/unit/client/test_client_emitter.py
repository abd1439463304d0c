"""The emitter's queue, batching, spool and resend, against an in-memory transport."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_fakes import PROJECT, FakeTransport, metric_event, steps_by_subject

from provgraph.client import ClientError, Emitter
from provgraph.client.spool import REJECTED_FILE
from provgraph.schemas import RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

FAST: dict[str, Any] = {"linger_s": 0.02, "retry_initial_s": 0.02, "retry_max_s": 0.1}


@pytest.fixture()
def transport() -> FakeTransport:
    return FakeTransport()


@pytest.fixture()
def emitter(transport: FakeTransport, tmp_path: Path) -> Iterator[Emitter]:
    emitter = Emitter(transport, spool_dir=tmp_path / "spool", project=PROJECT, **FAST)
    yield emitter
    emitter.close(timeout=5)


def emit_steps(emitter: Emitter, steps: range, subjects: int = 3) -> None:
    for step in steps:
        emitter.emit(metric_event(step % subjects, step))


def assert_in_order_and_complete(transport: FakeTransport, steps: range, subjects: int = 3) -> None:
    by_subject = steps_by_subject(transport.events)
    for subject in range(subjects):
        expected = [s for s in steps if s % subjects == subject]
        got = by_subject[f"run:r{subject}"]
        deduped = list(dict.fromkeys(got))
        assert deduped == expected, f"r{subject}: order or completeness broken"


def test_events_arrive_in_batches_and_in_order(emitter: Emitter, transport: FakeTransport) -> None:
    emit_steps(emitter, range(1200))
    assert emitter.flush(timeout=10)
    assert len(transport.events) == 1200
    assert max(len(b) for b in transport.batches) <= 500
    assert len(transport.batches) < 1200
    assert_in_order_and_complete(transport, range(1200))


def test_linger_sends_a_partial_batch_without_a_flush(
    emitter: Emitter, transport: FakeTransport
) -> None:
    emit_steps(emitter, range(3))
    deadline = time.monotonic() + 5
    while len(transport.events) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(transport.events) == 3


def test_a_down_transport_spools_and_resends_in_order(
    emitter: Emitter, transport: FakeTransport
) -> None:
    emit_steps(emitter, range(100))
    assert emitter.flush(timeout=5)
    transport.up = False
    emit_steps(emitter, range(100, 400))
    assert not emitter.flush(timeout=0.3)
    assert emitter.spool.pending > 0
    transport.up = True
    assert emitter.flush(timeout=10)
    assert emitter.spool.pending == 0
    assert_in_order_and_complete(transport, range(400))


def test_emit_never_waits_while_the_transport_is_down(
    emitter: Emitter, transport: FakeTransport
) -> None:
    transport.up = False
    slowest = 0.0
    for step in range(500):
        started = time.perf_counter()
        emitter.emit(metric_event(step % 3, step))
        slowest = max(slowest, time.perf_counter() - started)
    # Not a speed test (benchmarks/ measures that): it only tells a queue hand-off from an
    # emit that waited for the retrying sender, with room for a loaded machine.
    assert slowest < 1.0
    transport.up = True
    assert emitter.flush(timeout=10)
    assert_in_order_and_complete(transport, range(500))


def test_a_full_queue_overflows_to_the_spool_keeping_order(
    transport: FakeTransport, tmp_path: Path
) -> None:
    transport.up = False
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, max_queue=10, **FAST)
    emit_steps(emitter, range(300))
    assert emitter.pending == 300
    transport.up = True
    assert emitter.flush(timeout=10)
    emitter.close()
    assert_in_order_and_complete(transport, range(300))


def test_a_new_emitter_resends_what_a_closed_one_left(tmp_path: Path) -> None:
    down = FakeTransport()
    down.up = False
    first = Emitter(down, spool_dir=tmp_path, project=PROJECT, **FAST)
    emit_steps(first, range(50))
    assert not first.close(timeout=0.3)
    assert down.events == []

    up = FakeTransport()
    second = Emitter(up, spool_dir=tmp_path, project=PROJECT, **FAST)
    emit_steps(second, range(50, 60))
    assert second.flush(timeout=10)
    second.close()
    assert_in_order_and_complete(up, range(60))


def test_refused_events_land_in_the_rejected_file(
    emitter: Emitter, transport: FakeTransport
) -> None:
    transport.reject_types = {"run.metrics.logged"}
    emitter.emit(metric_event(0, 1))
    assert emitter.flush(timeout=5)
    lines = (emitter.spool.directory / REJECTED_FILE).read_text().splitlines()
    assert json.loads(lines[0])["reason"] == "fake refusal"


def test_an_event_over_the_size_limit_is_rejected_not_sent(
    emitter: Emitter, transport: FakeTransport
) -> None:
    points = tuple(MetricPoint(name="x" * 250, step=i, value=1.0) for i in range(1000))
    payload = RunMetricsLoggedPayload(run_id="big", points=points)
    emitter.emit(emitter.make(RunMetricsLogged, payload))
    assert emitter.flush(timeout=5)
    assert transport.events == []
    assert (emitter.spool.directory / REJECTED_FILE).exists()


def test_close_spools_what_is_still_queued_and_closes_the_transport(
    transport: FakeTransport, tmp_path: Path
) -> None:
    transport.up = False
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, linger_s=5.0)
    emit_steps(emitter, range(20))
    assert not emitter.close(timeout=0.1)
    assert transport.closed
    with pytest.raises(ClientError):
        emitter.emit(metric_event(0, 99))
    again = Emitter(FakeTransport(), spool_dir=tmp_path, project=PROJECT)
    assert again.spool.pending == 20
    again.close(timeout=5)


def test_context_manager_flushes_on_exit(transport: FakeTransport, tmp_path: Path) -> None:
    with Emitter(transport, spool_dir=tmp_path, project=PROJECT, linger_s=5.0) as emitter:
        emit_steps(emitter, range(5))
    assert len(transport.events) == 5


def test_emit_takes_only_contract_events(emitter: Emitter) -> None:
    with pytest.raises(TypeError):
        emitter.emit({"event_type": "run.started"})  # type: ignore[arg-type]


def test_a_second_emitter_on_a_busy_spool_uses_its_own_subdirectory(
    emitter: Emitter, transport: FakeTransport
) -> None:
    other = Emitter(transport, spool_dir=emitter.spool.directory, project=PROJECT)
    assert other.spool.directory.parent == emitter.spool.directory
    other.close(timeout=5)
