"""A real `provgraph projector` process for the tests, and the producing and waiting they do.

`ProjectorProcess` runs `python -m provgraph.cli projector` (or the pausing one of
projector_faults.py) as a child process with its output in a log file; the
`projector_process` fixture (conftest.py) builds them and kills them after the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kafka import KafkaProducer
from neo4j import Driver

from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projection.canonical import CanonicalGraph
from provgraph.ingest.projector.batch import logged_time, principal_of
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import read_log_in_order
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event
from provgraph.schemas.storage import format_time

# Small batches, so a few hundred events make a dozen batches and a crash lands mid-stream.
MAX_BATCH = 25
# A short backoff cap: recovery after an outage is then seen within ~2 s, not up to 10 s.
BACKOFF_MAX_S = 2.0
# The production projector with a writer that pauses at a hook (a test-owned entry point).
PAUSING_PROJECTOR = Path(__file__).with_name("projector_faults.py")


def send(producer: KafkaProducer, topic: str, events: list[Event]) -> None:
    for event in events:
        producer.send(topic, key=event.kafka_key(), value=event.to_json_bytes())
    producer.flush(timeout=30)


def produce(bootstrap: str, topic: str, events: list[Event]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    try:
        send(producer, topic, events)
    finally:
        producer.close()


class ProjectorProcess:
    """`python -m provgraph.cli projector` (or the pausing one) as a child process, its output
    in a log file."""

    def __init__(self, settings: IngestSettings, log_path: Path) -> None:
        self.settings = settings
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def _env(self) -> dict[str, str]:
        s = self.settings
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_PROJECTOR_")}
        env.update(
            PROVGRAPH_KAFKA_BOOTSTRAP=s.kafka_bootstrap,
            PROVGRAPH_NEO4J_URI=s.neo4j_uri,
            PROVGRAPH_NEO4J_USER=s.neo4j_user,
            PROVGRAPH_NEO4J_PASSWORD=s.neo4j_password,
            PROVGRAPH_EVENTS_TOPIC=s.events_topic,
            PROVGRAPH_DEAD_LETTER_TOPIC=s.dead_letter_topic,
            PROVGRAPH_TOPIC_PARTITIONS=str(s.topic_partitions),
            PROVGRAPH_PROJECTOR_GROUP=s.projector_group,
            PROVGRAPH_PROJECTOR_MAX_BATCH=str(MAX_BATCH),
            PROVGRAPH_PROJECTOR_POLL_TIMEOUT_MS="200",
            PROVGRAPH_PROJECTOR_BACKOFF_INITIAL_S="0.2",
            PROVGRAPH_PROJECTOR_BACKOFF_MAX_S=str(BACKOFF_MAX_S),
            # A killed member leaves the group after this; the restart's rebalance waits.
            PROVGRAPH_PROJECTOR_SESSION_TIMEOUT_MS="10000",
        )
        return env

    def start(self, *args: str) -> None:
        """`provgraph projector --topic <topic> <args>`."""
        argv = [sys.executable, "-m", "provgraph.cli", "projector"]
        self._spawn([*argv, "--topic", self.settings.events_topic, *args])

    def start_pausing(self, pause_at: str, marker: Path) -> None:
        """The same projector with a hooked writer that pauses at `pause_at` (`<hook>:<n>`)."""
        argv = [sys.executable, str(PAUSING_PROJECTOR), "--topic", self.settings.events_topic]
        self._spawn([*argv, "--pause-at", pause_at, "--marker", str(marker)])

    def _spawn(self, argv: list[str]) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                argv, env=self._env(), stdout=log, stderr=subprocess.STDOUT
            )

    def wait_exit(self, timeout_s: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=timeout_s)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL (no cleanup, no group leave), and reap the child."""
        if self.alive():
            assert self.proc is not None
            self.proc.kill()
            self.proc.wait(timeout=10)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def wait_for(
    condition: Callable[[], bool],
    timeout_s: float,
    what: str,
    log: str | Callable[[], str] = "",
) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            text = log() if callable(log) else log  # read at the failure, not at the call
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}\n{text}")
        time.sleep(0.2)


def applied_records(driver: Driver, topic: str) -> int:
    """How many log records Neo4j says it has applied (stored offsets + 1, summed)."""
    return sum(o + 1 for o in GraphWriter(driver).read_offsets(topic).values())


def log_stamps(settings: IngestSettings) -> dict[str, LogStamp]:
    """Per event_id, what the log says about its first copy: when the log received it and the
    principal stamped on it (the first copy in a partition is the one applied)."""
    stamps: dict[str, LogStamp] = {}
    for batch in read_log_in_order(settings):
        for record in batch:
            try:
                event_id = str(json.loads(record.value)["event_id"])
            except Exception:  # not an event (some hostile records are not even JSON)
                continue
            logged = logged_time(record)
            stamp = LogStamp(format_time(logged) if logged else None, principal_of(record))
            stamps.setdefault(event_id, stamp)
    return stamps


def fold_as_logged(settings: IngestSettings, events: list[Event], project: str) -> CanonicalGraph:
    """The in-memory fold of the events a test produced, each stamped as the log received it:
    what the projector must have built (an independent check of the log's own fold)."""
    stamps, graph = log_stamps(settings), MemoryGraph()
    for event in events:
        graph.apply(project_event(event, stamps[str(event.event_id)]))
    return graph.canonical(project)
