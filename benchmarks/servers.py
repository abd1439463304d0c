"""Private Kafka and Neo4j for the benchmarks: free loopback ports, an empty database the
benchmark owns and clears between phases, never the shared servers or topics."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
from kafka.admin import KafkaAdminClient, NewTopic
from neo4j import Driver

from provgraph.core.settings import Neo4jSettings
from provgraph.infra.kafka import KafkaServer
from provgraph.infra.neo4j import Neo4jServer
from provgraph.infra.process import wait_until
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.settings import IngestSettings

_CLEAR = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateInfra:
    """A Kafka broker and a Neo4j server under `home`, started by the project's launcher
    classes; use as a context manager so both stop however the benchmark ends."""

    def __init__(self, home: Path, neo4j_heap: str = "1g", pagecache: str = "1g") -> None:
        self.settings = InfraSettings(
            home=home,
            kafka_port=free_port(),
            kafka_controller_port=free_port(),
            neo4j_bolt_port=free_port(),
            neo4j_http_port=free_port(),
            kafka_heap="768m",
            neo4j_heap=neo4j_heap,
            neo4j_pagecache=pagecache,
        )
        self.kafka = KafkaServer(self.settings)
        self.neo4j = Neo4jServer(self.settings)
        self._driver: Driver | None = None

    def __enter__(self) -> PrivateInfra:
        try:
            for server in (self.kafka, self.neo4j):
                self._start(server)
        except BaseException:
            self.stop()
            raise
        apply_schema(self.driver)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @staticmethod
    def _start(server: Any) -> None:
        server.process.start(server.prepare())
        if not wait_until(server.is_ready, 180.0, interval_s=0.5):
            raise RuntimeError(f"private {server.name} did not start:\n{server.process.log_tail()}")
        server.after_ready()

    def stop(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None
        for server in (self.kafka, self.neo4j):
            if server.process.pid() is not None:
                server.process.stop(timeout_s=60)

    @property
    def driver(self) -> Driver:
        """A driver configured as the services' (`Neo4jSettings.neo4j_driver`: the same
        notifications asked of the server), shared by every side of every part."""
        if self._driver is None:
            s = self.settings
            own = Neo4jSettings(
                neo4j_uri=s.neo4j_uri, neo4j_user=s.neo4j_user, neo4j_password=self.neo4j.password()
            )
            self._driver = own.neo4j_driver()
        return self._driver

    @property
    def bootstrap(self) -> str:
        return self.settings.kafka_bootstrap

    def ingest_settings(self, topic: str, **overrides: Any) -> IngestSettings:
        """Settings of a projector/producer on this infra's `topic` (its own consumer group)."""
        s = self.settings
        values: dict[str, Any] = {
            "kafka_bootstrap": s.kafka_bootstrap,
            "events_topic": topic,
            "dead_letter_topic": f"{topic}.dlq",
            "neo4j_uri": s.neo4j_uri,
            "neo4j_user": s.neo4j_user,
            "neo4j_password": self.neo4j.password(),
            "projector_group": f"bench-{uuid.uuid4().hex[:8]}",
            **overrides,
        }
        return IngestSettings(**values)

    def new_topic(self, stem: str, partitions: int = 6) -> str:
        """A fresh topic (and its dead-letter topic) with `partitions` partitions."""
        name = f"bench.{stem}.{uuid.uuid4().hex[:8]}"
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            admin.create_topics(
                [
                    NewTopic(t, num_partitions=partitions, replication_factor=1)
                    for t in (name, f"{name}.dlq")
                ]
            )
        finally:
            admin.close()
        return name

    def clear_graph(self) -> None:
        """Delete every node and relationship (the constraints stay)."""
        with self.driver.session() as session:
            session.run(_CLEAR).consume()

    def settle(
        self, quiet_percent: float = 10.0, quiet_s: float = 3.0, limit_s: float = 180.0
    ) -> float:
        """Wait until the Neo4j server has been quiet (under `quiet_percent` of one core) for
        `quiet_s` seconds in a row, at most `limit_s`; the seconds waited. After a large write
        the server keeps flushing and collecting for a while on the same two cores as the
        timed calls: reads are timed on a settled graph."""
        pid = self.neo4j.process.pid()
        if pid is None:
            return 0.0
        server, start, quiet = psutil.Process(pid), time.perf_counter(), 0.0
        server.cpu_percent(None)
        while quiet < quiet_s and time.perf_counter() - start < limit_s:
            busy = server.cpu_percent(interval=0.5)
            quiet = quiet + 0.5 if busy < quiet_percent else 0.0
        return time.perf_counter() - start

    def count_applied(self) -> int:
        records, _, _ = self.driver.execute_query("MATCH (e:AppliedEvent) RETURN count(e) AS n")
        return int(records[0]["n"])
