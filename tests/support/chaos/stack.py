"""The chaos run's own stack: a private Kafka and Neo4j, the ingest service and a projector
group, as real processes started the way `provgraph services up` starts them.

Nothing here touches the shared servers: every process gets an environment cleared of the
caller's PROVGRAPH_* variables and given the private servers' connection values.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from kafka import KafkaConsumer, TopicPartition
from neo4j import Driver, GraphDatabase

from provgraph.authz.admin import access_event, append_to_log, token_issued
from provgraph.authz.tokens import new_token
from provgraph.cli.services import app_specs
from provgraph.core.eventlog import ensure_topics
from provgraph.infra.process import ManagedProcess, wait_until
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event
from provgraph.schemas.events.governance import AccessRole

from .ledger import ADMIN, Ledger, of_event
from .plan import ChaosPlan

ADMIN_ACTOR = "service:chaos-admin"
_PROJECTOR_ARGV = (sys.executable, "-m", "provgraph.cli", "projector")


class PrivateServer(Protocol):
    """A server of this test alone (tests/conftest.py `PrivateServer`)."""

    def start(self, timeout_s: float = 120.0) -> None: ...
    def stop(self) -> None: ...
    def kill(self) -> None: ...


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proc:
    """One service process: started detached in its own session, signalled by pid."""

    def __init__(self, name: str, argv: tuple[str, ...], env: dict[str, str], home: Path) -> None:
        self.name, self.argv, self.env = name, argv, env
        marker = " ".join(argv[1:4])
        self.managed = ManagedProcess(name, home / f"{name}.pid", home / f"{name}.log", marker)
        self.paused = False

    def start(self) -> None:
        self.managed.start(self.argv, env=self.env)
        self.paused = False

    def pid(self) -> int | None:
        return self.managed.pid()

    def signal(self, sig: signal.Signals) -> None:
        pid = self.pid()
        if pid is not None:
            os.killpg(pid, sig)

    def kill9(self) -> None:
        self.signal(signal.SIGKILL)
        wait_until(lambda: self.pid() is None, 10.0, 0.05)

    def stop(self) -> None:
        if self.paused:
            self.signal(signal.SIGCONT)
        self.managed.stop(20.0)

    def log_tail(self, lines: int = 30) -> str:
        return self.managed.log_tail(lines)


class ChaosStack:
    """Topics, ingest, projectors and tokens on private servers; stop everything on exit."""

    def __init__(self, home: Path, kafka: Any, neo4j: Any, plan: ChaosPlan, ledger: Ledger) -> None:
        self.home, self.kafka, self.neo4j, self.plan, self.ledger = home, kafka, neo4j, plan, ledger
        stem = f"chaos-{uuid.uuid4().hex[:8]}"
        endpoint = neo4j.neo4j
        self.settings = IngestSettings(
            kafka_bootstrap=kafka.bootstrap,
            events_topic=f"{stem}.events",
            dead_letter_topic=f"{stem}.dlq",
            topic_partitions=plan.partitions,
            neo4j_uri=endpoint.uri,
            neo4j_user=endpoint.user,
            neo4j_password=endpoint.password,
            projector_group=f"{stem}.projector",
        )
        self.driver: Driver = GraphDatabase.driver(
            endpoint.uri, auth=(endpoint.user, endpoint.password), connection_timeout=5.0
        )
        self.ingest_port = _free_port()
        self.ingest_url = f"http://127.0.0.1:{self.ingest_port}"
        self.ingest = Proc("ingest", self._ingest_argv(), self.env(), home)
        self.projectors = [
            Proc(f"projector-{n}", _PROJECTOR_ARGV, self.env(), home)
            for n in range(plan.projectors)
        ]
        self.fault_lock = threading.Lock()  # held while a fault is in progress
        self.tokens: dict[str, str] = {}
        self._ends: KafkaConsumer | None = None

    # --- processes ------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        """The services' environment: the caller's, without its PROVGRAPH_* values."""
        s = self.settings
        env = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_")}
        env.update(
            PROVGRAPH_KAFKA_BOOTSTRAP=s.kafka_bootstrap,
            PROVGRAPH_EVENTS_TOPIC=s.events_topic,
            PROVGRAPH_DEAD_LETTER_TOPIC=s.dead_letter_topic,
            PROVGRAPH_TOPIC_PARTITIONS=str(s.topic_partitions),
            PROVGRAPH_NEO4J_URI=s.neo4j_uri,
            PROVGRAPH_NEO4J_USER=s.neo4j_user,
            PROVGRAPH_NEO4J_PASSWORD=s.neo4j_password,
            PROVGRAPH_PROJECTOR_GROUP=s.projector_group,
            PROVGRAPH_INGEST_HOST="127.0.0.1",
            PROVGRAPH_INGEST_PORT=str(self.ingest_port),
            # Small batches, so a kill lands mid-stream, and quick recovery after outages.
            PROVGRAPH_PROJECTOR_MAX_BATCH="200",
            PROVGRAPH_PROJECTOR_POLL_TIMEOUT_MS="200",
            PROVGRAPH_PROJECTOR_BACKOFF_INITIAL_S="0.2",
            PROVGRAPH_PROJECTOR_BACKOFF_MAX_S="2",
            # A stopped member is evicted after this (the broker's minimum): a paused projector
            # becomes a zombie within the run (the projector has no max.poll.interval.ms
            # setting; a stopped process misses its heartbeats, which evicts it the same way).
            PROVGRAPH_PROJECTOR_SESSION_TIMEOUT_MS=str(self.plan.session_timeout_ms),
        )
        return env

    def _ingest_argv(self) -> tuple[str, ...]:
        infra = InfraSettings(host="127.0.0.1", ingest_port=self.ingest_port)
        return next(spec.argv for spec in app_specs(infra) if spec.name == "ingest")

    def start(self) -> None:
        """Topics first (as `services up` leaves them), then ingest, then the projectors."""
        ensure_topics(self.settings)
        self.ingest.start()
        if not wait_until(self._ingest_ready, 60.0, 0.25):
            raise RuntimeError(f"ingest did not become ready:\n{self.ingest.log_tail()}")
        for projector in self.projectors:
            projector.start()

    def _ingest_ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.ingest_url}/readyz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def close(self) -> None:
        for proc in (*self.projectors, self.ingest):
            proc.stop()
        if self._ends is not None:
            self._ends.close()
        self.driver.close()

    def __enter__(self) -> ChaosStack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- tokens ---------------------------------------------------------------------------

    def issue_tokens(self, projects: list[str], timeout_s: float = 90.0) -> dict[str, str]:
        """A writer token per project (reader on the others), through the admin path."""
        events: list[Event] = []
        for project in projects:
            name = f"service:chaos-writer-{project}"
            self.tokens[project] = token = new_token()
            events.append(token_issued(name, token, [], ADMIN_ACTOR))
            for other in projects:
                role = AccessRole.WRITER if other == project else AccessRole.READER
                events.append(access_event(name, other, role, ADMIN_ACTOR, grant=True))
        entries = [self.ledger.add(of_event(ADMIN, e)) for e in events]
        for entry, appended in zip(entries, append_to_log(events, self.settings), strict=True):
            self.ledger.ack(entry, (appended.partition, appended.offset))
        ids = [str(e.event_id) for e in events]
        if not wait_until(lambda: len(self.applied(ids)) == len(ids), timeout_s, 0.5):
            tails = "\n".join(p.log_tail() for p in self.projectors)
            raise RuntimeError(f"the tokens were not applied in {timeout_s} s:\n{tails}")
        return self.tokens

    # --- reading the state ----------------------------------------------------------------

    def applied(self, event_ids: list[str]) -> set[str]:
        """Which of `event_ids` are applied (empty when Neo4j does not answer)."""
        query = "MATCH (e:AppliedEvent) WHERE e.event_id IN $ids RETURN e.event_id AS id"
        try:
            # An auto-commit query: not retried for half a minute while Neo4j is down.
            with self.driver.session() as session:
                return {str(r["id"]) for r in session.run(query, ids=event_ids)}
        except Exception:  # Neo4j is down (a fault): nothing is known to be applied
            return set()

    def lag(self) -> dict[int, int]:
        """Records not yet applied, per partition (Neo4j's stored offsets against the end)."""
        topic = self.settings.events_topic
        if self._ends is None:
            self._ends = KafkaConsumer(
                bootstrap_servers=self.settings.kafka_bootstrap, enable_auto_commit=False
            )
        tps = [TopicPartition(topic, p) for p in range(self.settings.topic_partitions)]
        ends = {tp.partition: end for tp, end in self._ends.end_offsets(tps).items()}
        stored = GraphWriter(self.driver).read_offsets(topic)
        return {p: end - (stored.get(p, -1) + 1) for p, end in ends.items()}

    def wait_idle(self, timeout_s: float, stalled_s: float = 60.0) -> dict[int, int]:
        """Until every record is applied (twice in a row), `timeout_s` passes, or nothing
        moved for `stalled_s`; the records left per partition."""
        now = time.monotonic()
        deadline, moved_at, calm, lag = now + timeout_s, now, 0, {-1: -1}
        while calm < 2 and time.monotonic() < min(deadline, moved_at + stalled_s):
            try:
                latest = self.lag()
            except Exception:  # a server still recovering: ask again
                latest = {-1: -1}
            if latest != lag:
                moved_at, lag = time.monotonic(), latest
            calm = calm + 1 if not any(lag.values()) else 0
            time.sleep(1.0)
        return {p: n for p, n in lag.items() if n}

    def running_projectors(self) -> Iterator[tuple[int, Proc]]:
        for n, proc in enumerate(self.projectors):
            if proc.pid() is not None:
                yield n, proc
