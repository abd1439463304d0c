"""The stack of the Kafka cluster fault test: ingest and a projector group started by
`provgraph services up`'s own specs, on a private Kafka cluster and the session's Neo4j; a
steady load through ingest's HTTP API; what the log, the offsets and the graph say."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from e2e_helpers import bearer, free_port
from kafka import TopicPartition
from neo4j import Driver
from support.chaos.workload import DatasetVersions, Jobs

from provgraph.cli.services import app_specs
from provgraph.core import kafka_clients
from provgraph.infra.apps import Apps
from provgraph.infra.envfile import write_env_file
from provgraph.infra.process import wait_until
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projection.canonical import CanonicalGraph
from provgraph.ingest.projector.batch import logged_time, principal_of
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import read_log_in_order
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event
from provgraph.schemas.storage import format_time


def cluster_stack(home: Path, settings: IngestSettings, projectors: int) -> Apps:
    """Ingest and `projectors` projectors (no query service: the test reads Neo4j), their
    connection file written as `infra up --brokers 3` writes one."""
    infra = InfraSettings(home=home, ingest_port=free_port(), projectors=projectors)
    s = settings
    write_env_file(
        infra.env_file,
        {
            "PROVGRAPH_KAFKA_BOOTSTRAP": s.kafka_bootstrap,
            "PROVGRAPH_TOPIC_REPLICATION": str(s.topic_replication),
            "PROVGRAPH_TOPIC_MIN_INSYNC_REPLICAS": str(s.topic_min_insync_replicas),
            "PROVGRAPH_EVENTS_TOPIC": s.events_topic,
            "PROVGRAPH_DEAD_LETTER_TOPIC": s.dead_letter_topic,
            "PROVGRAPH_PROJECTOR_GROUP": s.projector_group,
            "PROVGRAPH_NEO4J_URI": s.neo4j_uri,
            "PROVGRAPH_NEO4J_USER": s.neo4j_user,
            "PROVGRAPH_NEO4J_PASSWORD": s.neo4j_password,
            "PROVGRAPH_AUTH_DISABLED": "false",
            # A killed member's partitions move to the other after this; quick retries.
            "PROVGRAPH_PROJECTOR_SESSION_TIMEOUT_MS": "10000",
            "PROVGRAPH_PROJECTOR_POLL_TIMEOUT_MS": "200",
            "PROVGRAPH_PROJECTOR_BACKOFF_INITIAL_S": "0.2",
            "PROVGRAPH_PROJECTOR_BACKOFF_MAX_S": "2",
        },
    )
    return Apps(infra, [spec for spec in app_specs(infra) if spec.name != "query"])


def kill_app(apps: Apps, name: str) -> None:
    """SIGKILL the app `name` (no cleanup, no group leave)."""
    proc = apps.process(next(spec for spec in apps.specs if spec.name == name))
    pid = proc.pid()
    assert pid is not None, f"{name} is not running"
    os.killpg(pid, signal.SIGKILL)
    assert wait_until(lambda: proc.pid() is None, 10.0, 0.05), f"{name} survived SIGKILL"


@dataclass(frozen=True)
class Attempt:
    """One POST of a batch: when it started and ended, and the HTTP status (0: no answer)."""

    started: float
    ended: float
    status: int


@dataclass
class Load:
    """A steady load through ingest: batches of training-job events posted at a fixed pace
    from a thread, each retried until it is acknowledged; at most `max_events`."""

    url: str
    token: str
    project: str
    max_events: int
    batch: int = 20
    interval_s: float = 0.25
    sent: list[Event] = field(default_factory=list)
    acked: list[Event] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _jobs: Jobs = field(init=False)

    def __post_init__(self) -> None:
        self._jobs = Jobs(random.Random(30), "user:cluster-test", DatasetVersions())

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="cluster-load", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 60.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            assert not self._thread.is_alive(), "the load did not stop"

    def acked_count(self) -> int:
        return len(self.acked)

    def _run(self) -> None:
        pending: list[Event] = []
        while not self._stop.is_set() and len(self.sent) < self.max_events:
            while len(pending) < self.batch:
                pending += self._jobs.job(self.project, [])
            batch, pending = pending[: self.batch], pending[self.batch :]
            self.sent += batch
            self._post_until_acked(batch)
            self._stop.wait(self.interval_s)

    def _post_until_acked(self, batch: list[Event], give_up_s: float = 90.0) -> None:
        # The same events again after a failure: an event id is applied once however often
        # it reaches the log. A batch is finished even after `stop`, so that in the end every
        # event sent was acknowledged (unless ingest refused it for `give_up_s`).
        deadline = time.monotonic() + give_up_s
        while time.monotonic() < deadline:
            if 200 <= self._post(batch) < 300:
                self.acked += batch
                return
            time.sleep(0.5)

    def _post(self, batch: list[Event]) -> int:
        body = b"[" + b",".join(event.to_json_bytes() for event in batch) + b"]"
        request = urllib.request.Request(
            f"{self.url}/v1/events", data=body, method="POST", headers=bearer(self.token)
        )
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status = int(answer.status)
        except urllib.error.HTTPError as exc:
            status = exc.code
        except OSError:
            status = 0
        self.attempts.append(Attempt(started, time.monotonic(), status))
        return status


def lag(settings: IngestSettings, driver: Driver) -> dict[int, int]:
    """Records not yet applied per partition: the log's end against Neo4j's stored offsets."""
    stored = GraphWriter(driver).read_offsets(settings.events_topic)
    return {p: end - (stored.get(p, -1) + 1) for p, end in _ends(settings).items()}


def group_lag(settings: IngestSettings) -> dict[int, int]:
    """Records past the projector group's Kafka commits per partition."""
    admin = kafka_clients.admin_client(settings.kafka_bootstrap, timeout_s=10.0)
    try:
        group = settings.projector_group
        committed = admin.list_group_offsets(group).get(group, {})
    finally:
        admin.close()
    topic = settings.events_topic
    done = {tp.partition: meta.offset for tp, meta in committed.items() if tp.topic == topic}
    return {p: end - max(done.get(p, 0), 0) for p, end in _ends(settings).items()}


def _ends(settings: IngestSettings) -> dict[int, int]:
    consumer = kafka_clients.consumer(settings.kafka_bootstrap, client_id="cluster-test-lag")
    try:
        topic = settings.events_topic
        tps = [TopicPartition(topic, p) for p in range(settings.topic_partitions)]
        return {tp.partition: end for tp, end in consumer.end_offsets(tps).items()}
    finally:
        consumer.close()


def applied_counts(driver: Driver, event_ids: list[str]) -> Counter[str]:
    """How many AppliedEvent nodes each of `event_ids` has in Neo4j."""
    records, _, _ = driver.execute_query(
        "MATCH (e:AppliedEvent) WHERE e.event_id IN $ids RETURN e.event_id AS id",
        ids=event_ids,
    )
    return Counter(str(r["id"]) for r in records)


def log_copies(settings: IngestSettings) -> tuple[Counter[str], dict[str, LogStamp]]:
    """Per event id: how many copies the log holds, and how the log stamped the first one."""
    copies: Counter[str] = Counter()
    stamps: dict[str, LogStamp] = {}
    for batch in read_log_in_order(settings):
        for record in batch:
            event_id = str(json.loads(record.value)["event_id"])
            copies[event_id] += 1
            logged = logged_time(record)
            stamp = LogStamp(format_time(logged) if logged else None, principal_of(record))
            stamps.setdefault(event_id, stamp)
    return copies, stamps


def fold_acked(events: list[Event], stamps: dict[str, LogStamp], project: str) -> CanonicalGraph:
    """The in-memory fold of the acknowledged events, each stamped as the log received it:
    what the projector group must have built (independent of the log's own fold, `verify`)."""
    graph = MemoryGraph()
    for event in events:
        graph.apply(project_event(event, stamps[str(event.event_id)]))
    return graph.canonical(project)


def describe(attempts: list[Attempt], since: float) -> str:
    """The attempts' statuses in time order, for failure messages."""
    return ", ".join(f"{a.started - since:+.1f}s:{a.status}" for a in attempts)


def window(attempts: list[Attempt], start: float, end: float) -> list[Attempt]:
    """The attempts made wholly between `start` and `end`."""
    return [a for a in attempts if a.started >= start and a.ended <= end]
