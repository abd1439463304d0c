"""A process that exits while Kafka is unreachable leaves its events in the spool; the next
emitter on the same spool directory resends them, in order, before its own."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from client_kafka_helpers import assert_exactly_as_emitted, read_topic

from provgraph.client import Emitter, KafkaTransport
from provgraph.schemas import Event, RunMetricsLogged, parse_event
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

FIRST_PROCESS = """
import sys
from provgraph.client import Emitter, KafkaTransport
from provgraph.schemas import RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

bootstrap, spool = sys.argv[1], sys.argv[2]
transport = KafkaTransport(bootstrap, timeout_s=1.0)
emitter = Emitter(transport, spool_dir=spool, project="restart", exit_flush_s=1.0)
for step in range(40):
    point = MetricPoint(name="loss", step=step, value=1.0)
    payload = RunMetricsLoggedPayload(run_id=f"run-{step % 4}", points=(point,))
    event = emitter.make(RunMetricsLogged, payload)
    emitter.emit(event)
    print(event.to_json_bytes().decode())
# no close(): the atexit hook flushes (in vain: nothing listens) and spools the rest
"""


def dead_bootstrap() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def test_a_new_process_resends_what_the_previous_one_spooled(
    kafka_bootstrap: str, kafka_topic: str, tmp_path: Path
) -> None:
    spool = tmp_path / "spool"
    done = subprocess.run(
        [sys.executable, "-c", FIRST_PROCESS, dead_bootstrap(), str(spool)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first: list[Event] = [parse_event(line) for line in done.stdout.splitlines()]
    assert len(first) == 40
    assert list(spool.glob("segment-*.jsonl")), "the first process left no spool"

    emitter = Emitter(KafkaTransport(kafka_bootstrap, topic=kafka_topic), spool_dir=spool)
    assert emitter.spool.pending == 40
    later = [
        emitter.make(
            RunMetricsLogged,
            RunMetricsLoggedPayload(
                run_id=f"run-{step % 4}", points=(MetricPoint(name="loss", step=step, value=0.5),)
            ),
            project="restart",
        )
        for step in range(40, 50)
    ]
    for event in later:
        emitter.emit(event)
    assert emitter.flush(timeout=30)
    assert emitter.close(timeout=10)
    assert not list(spool.glob("segment-*.jsonl"))

    received = read_topic(kafka_bootstrap, kafka_topic, expected=50)
    assert_exactly_as_emitted(first + later, received)
    assert json.loads(done.stdout.splitlines()[0])["project"] == "restart"
