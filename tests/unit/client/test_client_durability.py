"""What the emitter accepted is on disk; spools of other processes of the name are drained;
refusals as not authorised are retried for a bounded time."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from client_fakes import PROJECT, FakeTransport, metric_event, steps_by_subject

from provgraph.client import ConfigError, Emitter, Spool
from provgraph.client.spool import REJECTED_FILE
from provgraph.schemas import Event

FAST: dict[str, Any] = {"linger_s": 0.02, "retry_initial_s": 0.02, "retry_max_s": 0.1}


def journal(directory: Path) -> list[dict[str, Any]]:
    lines = [ln for p in sorted(directory.glob("segment-*")) for ln in p.read_text().splitlines()]
    return [json.loads(line) for line in lines]


def leave_spool(directory: Path, count: int) -> list[Event]:
    """A spool as a process that died before sending anything leaves it."""
    events = [metric_event(7, step) for step in range(count)]
    spool = Spool(directory)
    spool.write(1, [e.to_json_bytes() for e in events])
    spool.close()
    return events


def wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_emit_returns_with_the_event_in_the_journal(tmp_path: Path) -> None:
    transport = FakeTransport()
    transport.up = False
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, **FAST)
    events = [metric_event(0, step) for step in range(5)]
    for event in events:
        emitter.emit(event)
    ids = [line["event"]["event_id"] for line in journal(tmp_path)]
    assert ids == [str(e.event_id) for e in events]
    emitter.close(timeout=0)


def test_memory_durability_writes_at_send_time_and_at_close(tmp_path: Path) -> None:
    transport = FakeTransport()
    transport.up = False
    emitter = Emitter(
        transport, spool_dir=tmp_path, project=PROJECT, durability="memory", linger_s=5.0
    )
    emitter.emit(metric_event(0, 1))
    assert journal(tmp_path) == []
    assert emitter.pending == 1
    emitter.close(timeout=0)
    assert len(journal(tmp_path)) == 1


def test_an_unknown_durability_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        Emitter(FakeTransport(), spool_dir=tmp_path, durability="eventually")


def test_acknowledged_events_are_not_sent_again_by_a_later_emitter(tmp_path: Path) -> None:
    first = FakeTransport()
    with Emitter(first, spool_dir=tmp_path, project=PROJECT, **FAST) as emitter:
        for step in range(20):
            emitter.emit(metric_event(0, step))
    assert len(first.events) == 20
    later = FakeTransport()
    with Emitter(later, spool_dir=tmp_path, project=PROJECT, **FAST) as emitter:
        emitter.emit(metric_event(0, 99))
    assert len(later.events) == 1


def test_401_is_retried_until_the_token_works(tmp_path: Path) -> None:
    transport = FakeTransport()
    transport.unauthorized = True
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, auth_retry_s=30, **FAST)
    events = [metric_event(step % 2, step) for step in range(10)]
    for event in events:
        emitter.emit(event)
    assert wait_for(lambda: transport.calls >= 3)
    assert transport.events == []
    transport.unauthorized = False
    assert emitter.flush(timeout=10)
    emitter.close()
    assert transport.events == events
    assert not (tmp_path / REJECTED_FILE).exists()


def test_refusals_are_final_once_the_window_has_passed(tmp_path: Path) -> None:
    transport = FakeTransport()
    transport.unauthorized = True
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, auth_retry_s=0.3, **FAST)
    started = time.monotonic()
    emitter.emit(metric_event(0, 1))
    assert emitter.flush(timeout=10)
    assert time.monotonic() - started >= 0.3
    [line] = (tmp_path / REJECTED_FILE).read_text().splitlines()
    assert "401" in json.loads(line)["reason"]
    emitter.emit(metric_event(0, 2))  # still refused, no delivery since: final at once
    assert emitter.flush(timeout=0.25)
    emitter.close()


def test_after_the_window_only_the_forbidden_events_are_rejected(tmp_path: Path) -> None:
    transport = FakeTransport()
    transport.forbidden = {"run:r1"}
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, auth_retry_s=0.2, **FAST)
    events = [metric_event(step % 3, step) for step in range(30)]
    for event in events:
        emitter.emit(event)
    assert emitter.flush(timeout=10)
    emitter.close()
    assert transport.events == [e for e in events if e.subject != "run:r1"]
    rejected = [json.loads(ln) for ln in (tmp_path / REJECTED_FILE).read_text().splitlines()]
    assert sorted(r["event"]["event_id"] for r in rejected) == sorted(
        str(e.event_id) for e in events if e.subject == "run:r1"
    )


def test_pid_spools_of_dead_processes_are_sent_and_removed(tmp_path: Path) -> None:
    left = leave_spool(tmp_path / "pid-4001", 3) + leave_spool(tmp_path / "pid-4002", 2)
    transport = FakeTransport()
    transport.up = False
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, **FAST)
    assert emitter.pending == 5  # claimed before the constructor returns
    transport.up = True
    assert emitter.flush(timeout=10)
    emitter.close()
    assert sorted(str(e.event_id) for e in transport.events) == sorted(
        str(e.event_id) for e in left
    )
    assert not list(tmp_path.glob("pid-*"))


def test_a_spool_a_live_process_holds_is_left_to_it(tmp_path: Path) -> None:
    left = leave_spool(tmp_path / "pid-4001", 3)
    alive = Spool(tmp_path / "pid-4001")  # its lock is held: the process is alive
    transport = FakeTransport()
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, orphan_scan_s=0.05, **FAST)
    emitter.emit(metric_event(0, 1))
    assert emitter.flush(timeout=10)
    time.sleep(0.2)
    assert len(transport.events) == 1
    alive.close()  # the process ends (its kernel lock goes with it)
    assert wait_for(lambda: len(transport.events) == 4)
    emitter.close()
    assert transport.events[1:] == left


def test_the_names_directory_is_drained_when_its_holder_is_gone(tmp_path: Path) -> None:
    holder = Spool(tmp_path)
    transport = FakeTransport()
    emitter = Emitter(transport, spool_dir=tmp_path, project=PROJECT, orphan_scan_s=0.05, **FAST)
    assert emitter.spool.directory.parent == tmp_path
    assert emitter.spool.directory.name.startswith("pid-")
    event = metric_event(0, 1)
    holder.write(1, [event.to_json_bytes()])
    holder.close()
    assert wait_for(lambda: transport.events == [event])
    emitter.close()
    assert not list(tmp_path.glob("pid-*"))


@pytest.mark.parametrize("durability", ["spool", "memory"])
def test_threads_emitting_while_the_transport_flaps_lose_nothing(
    tmp_path: Path, durability: str
) -> None:
    transport = FakeTransport()
    emitter = Emitter(
        transport,
        spool_dir=tmp_path,
        project=PROJECT,
        durability=durability,
        max_queue=50,  # most events are read back from the journal
        batch_size=40,
        **FAST,
    )

    def emit_many(subject: int) -> None:
        for step in range(400):
            emitter.emit(metric_event(subject, step))

    threads = [threading.Thread(target=emit_many, args=(s,)) for s in range(4)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        transport.up = not transport.up
        time.sleep(0.003)
    transport.up = True
    assert emitter.flush(timeout=30)
    emitter.close()
    by_subject = steps_by_subject(transport.events)
    for subject in range(4):
        assert list(dict.fromkeys(by_subject[f"run:r{subject}"])) == list(range(400))
    assert not list(tmp_path.glob("segment-*"))
