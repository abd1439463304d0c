"""Nothing an SDK process emitted is lost when it is killed: the next process of the same name
sends it, from its own spool and from the ``pid-*`` spools of other processes; a spool a live
process holds is never sent by another. Real processes, SIGKILL, the real broker."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from client_kafka_helpers import assert_exactly_as_emitted, read_topic

from provgraph.client import Emitter, KafkaTransport
from provgraph.schemas import Event, RunMetricsLogged, parse_event
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

CHILD = Path(__file__).with_name("crash_child.py")
BATCH = 500  # the emitter's default batch size: at most one batch is in flight at a kill


def dead_bootstrap() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def child(
    bootstrap: str, topic: str, spool: Path, record: Path, count: int, mode: str
) -> list[str]:
    return [sys.executable, str(CHILD), bootstrap, topic, str(spool), str(record), str(count), mode]


def emitted(record: Path) -> list[Event]:
    return [parse_event(line) for line in record.read_bytes().splitlines()]


def wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture()
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:  # a failed test must not leave a child behind
        process.kill()
        process.wait(timeout=30)


def start_waiting(
    processes: list[subprocess.Popen[bytes]], argv: list[str], record: Path
) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(argv, stderr=subprocess.PIPE)
    processes.append(process)
    ready = Path(f"{record}.ready")
    assert wait_for(lambda: ready.exists() or process.poll() is not None, 120.0)
    assert process.poll() is None, process.stderr.read() if process.stderr else ""
    return process


def sigkill(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL


def resend(bootstrap: str, topic: str, spool: Path) -> None:
    """What the next process of the name does: start an emitter, let it send, close it."""
    with Emitter(KafkaTransport(bootstrap, topic=topic), spool_dir=spool) as emitter:
        assert emitter.flush(timeout=60), f"{emitter.pending} events still pending"


def test_events_emitted_up_to_a_sigkill_reach_kafka(
    kafka_bootstrap: str, kafka_topic: str, tmp_path: Path
) -> None:
    spool, record = tmp_path / "spool", tmp_path / "emitted.jsonl"
    argv = child(kafka_bootstrap, kafka_topic, spool, record, 1200, "kill")
    done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    events = emitted(record)
    assert len(events) == 1202 and events[-1].event_type == "run.failed"

    resend(kafka_bootstrap, kafka_topic, spool)
    received = read_topic(kafka_bootstrap, kafka_topic, expected=len(events))
    assert_exactly_as_emitted(events, received)
    assert len(received) - len(events) <= BATCH, "acknowledged events were sent again"
    assert not list(spool.glob("segment-*"))


def test_the_spools_of_two_killed_processes_of_one_name_are_both_resent(
    kafka_bootstrap: str,
    kafka_topic: str,
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    spool, down = tmp_path / "spool", dead_bootstrap()
    records = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    for record in records:  # both alive at once: the second one spools in pid-<pid>
        start_waiting(processes, child(down, kafka_topic, spool, record, 40, "wait"), record)
    for process in processes:
        sigkill(process)
    assert list(spool.glob("segment-*")) and list(spool.glob("pid-*/segment-*"))

    resend(kafka_bootstrap, kafka_topic, spool)
    events = emitted(records[0]) + emitted(records[1])
    assert len(events) == 2 * 42
    assert_exactly_as_emitted(events, read_topic(kafka_bootstrap, kafka_topic, len(events)))
    assert not list(spool.glob("pid-*"))


def test_a_live_process_spool_is_sent_only_once_it_is_dead(
    kafka_bootstrap: str,
    kafka_topic: str,
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    spool, record = tmp_path / "spool", tmp_path / "alive.jsonl"
    argv = child(dead_bootstrap(), kafka_topic, spool, record, 30, "wait")
    alive = start_waiting(processes, argv, record)

    transport = KafkaTransport(kafka_bootstrap, topic=kafka_topic)
    with Emitter(transport, spool_dir=spool, project="crash", orphan_scan_s=0.2) as emitter:
        payload = RunMetricsLoggedPayload(
            run_id="own", points=(MetricPoint(name="loss", step=1, value=0.5),)
        )
        own = [emitter.make(RunMetricsLogged, payload) for _ in range(5)]
        for event in own:
            emitter.emit(event)
        assert emitter.flush(timeout=30)
        time.sleep(1.0)  # several scans for spools to drain: the live one is not taken
        assert_exactly_as_emitted(own, read_topic(kafka_bootstrap, kafka_topic, len(own)))

        sigkill(alive)
        theirs = emitted(record)
        received = read_topic(kafka_bootstrap, kafka_topic, len(own) + len(theirs))
        assert_exactly_as_emitted(own + theirs, received)
