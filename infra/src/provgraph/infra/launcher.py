"""`provgraph infra up|down|status|logs`: Kafka and Neo4j as local processes, idempotently."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from provgraph.infra.base import LocalServer
from provgraph.infra.envfile import write_env_file
from provgraph.infra.errors import InfraError, PortInUseError, StartupError
from provgraph.infra.kafka import KafkaServer, kafka_cluster
from provgraph.infra.kafka_cluster import check_brokers
from provgraph.infra.neo4j import Neo4jServer
from provgraph.infra.process import port_is_free, wait_until
from provgraph.infra.settings import InfraSettings

Say = Callable[[str], None]


@dataclass(frozen=True)
class ServerStatus:
    """What `status` reports for one server."""

    name: str
    pid: int | None
    ports: dict[str, int]
    ready: bool


class Launcher:
    """Starts, probes and stops the local servers; writes the connection file."""

    def __init__(self, settings: InfraSettings | None = None, say: Say = print) -> None:
        self.settings = settings or InfraSettings()
        self.say = say
        self.cluster = kafka_cluster(self.settings)
        self.kafka_nodes = [
            KafkaServer(self.settings, node.node_id, self.cluster) for node in self.cluster.nodes
        ]
        self.kafka = self.kafka_nodes[0]
        self.neo4j = Neo4jServer(self.settings)
        self.servers: list[LocalServer] = [*self.kafka_nodes, self.neo4j]

    def up(self) -> None:
        """Start what is not running, wait until all answer, write the connection file.

        What goes into the servers once they answer (the graph schema, the first admin token)
        belongs to the services: the command line runs it after `up`.
        """
        check_brokers(self.kafka.dir, self.cluster.brokers)
        started: list[LocalServer] = []
        try:
            started += self._start_missing()
            for server in self.servers:
                self._await_ready(server)
        except BaseException:
            # Leave no half-started state: stop what this call started.
            for server in started:
                server.process.stop()
            raise
        self.write_env_file()
        self.say(f"connection settings: {self.settings.env_file}  (source it in a shell)")

    def down(self, wipe: bool = False) -> None:
        """Stop exactly the processes this launcher started; delete their data with wipe."""
        for server in reversed(self.servers):
            stopped = server.process.stop()
            self.say(f"{server.name}: {'stopped' if stopped else 'not running'}")
        if wipe:
            shutil.rmtree(self.settings.state_dir, ignore_errors=True)
            self.settings.env_file.unlink(missing_ok=True)
            self.settings.admin_token_file.unlink(missing_ok=True)
            self.say(f"wiped {self.settings.state_dir}")

    def status(self) -> list[ServerStatus]:
        """Each server: pid (None when not running), its ports, whether it answers."""
        result = []
        for server in self.servers:
            pid = server.process.pid()
            ready = pid is not None and server.is_ready()
            result.append(ServerStatus(server.name, pid, server.ports(), ready))
        return result

    def log_paths(self) -> dict[str, list[Path]]:
        return {server.name: server.log_paths() for server in self.servers}

    def write_env_file(self) -> Path:
        """Write the connection file (`export` lines, mode 0600: it holds a password and the
        local admin's token). Run again once the admin token exists, to add it."""
        s = self.settings
        values = {
            "PROVGRAPH_KAFKA_BOOTSTRAP": self.cluster.bootstrap,
            "PROVGRAPH_NEO4J_URI": s.neo4j_uri,
            "PROVGRAPH_NEO4J_USER": s.neo4j_user,
            "PROVGRAPH_NEO4J_PASSWORD": self.neo4j.password(),
            "PROVGRAPH_INGEST_URL": s.ingest_url,
            "PROVGRAPH_QUERY_URL": s.query_url,
            # The ports too, so that every provgraph command in a sourced shell agrees.
            "PROVGRAPH_KAFKA_PORT": str(s.kafka_port),
            "PROVGRAPH_KAFKA_CONTROLLER_PORT": str(s.kafka_controller_port),
            # The topics the services create are copied to every broker (at most three).
            "PROVGRAPH_TOPIC_REPLICATION": str(self.cluster.replication),
            "PROVGRAPH_TOPIC_MIN_INSYNC_REPLICAS": str(self.cluster.min_insync),
            "PROVGRAPH_NEO4J_BOLT_PORT": str(s.neo4j_bolt_port),
            "PROVGRAPH_NEO4J_HTTP_PORT": str(s.neo4j_http_port),
            "PROVGRAPH_INGEST_PORT": str(s.ingest_port),
            "PROVGRAPH_QUERY_PORT": str(s.query_port),
        }
        token = self._admin_token()
        if token:
            values["PROVGRAPH_TOKEN"] = token
        return write_env_file(s.env_file, values)

    def _admin_token(self) -> str | None:
        """The bootstrap admin token, once the command line has issued it."""
        path = self.settings.admin_token_file
        return path.read_text().strip() if path.exists() else None

    def _start_missing(self) -> list[LocalServer]:
        """Start every server that is not running: prepared side by side (formatting a Kafka
        node runs a JVM), then started, so a cluster's nodes come up together."""
        missing = []
        for server in self.servers:
            pid = server.process.pid()
            if pid is not None:
                self.say(f"{server.name}: already running (pid {pid}), reusing it")
            else:
                self._check_ports(server)
                missing.append(server)
        if not missing:
            return []
        names = ", ".join(server.name for server in missing)
        self.say(f"{names}: preparing (the first time, Maven fetches them from Maven Central)")
        with ThreadPoolExecutor(max_workers=len(missing)) as pool:
            argvs = list(pool.map(lambda server: server.prepare(), missing))
        started: list[LocalServer] = []
        try:
            for server, argv in zip(missing, argvs, strict=True):
                pid = server.process.start(argv)
                started.append(server)
                where = server.process.log_file.parent
                self.say(f"{server.name}: started (pid {pid}), logs in {where}")
        except BaseException:
            for server in started:
                server.process.stop()
            raise
        return started

    def _check_ports(self, server: LocalServer) -> None:
        host = self.settings.host
        for role, port in server.ports().items():
            if not port_is_free(host, port):
                raise PortInUseError(
                    f"{server.name} {role} port {host}:{port} is already in use by another "
                    f"process. Stop it (see `ss -ltnp 'sport = :{port}'`) or choose another port "
                    f"with PROVGRAPH_{_server_env(server.name)}_{_port_env(role)}."
                )

    def _await_ready(self, server: LocalServer) -> None:
        began = time.monotonic()

        def ready_or_dead() -> bool:
            if server.process.pid() is None:
                raise StartupError(
                    f"{server.name} exited during startup. Last lines of "
                    f"{server.process.log_file}:\n{server.process.log_tail()}"
                )
            return server.is_ready()

        if not wait_until(ready_or_dead, self.settings.startup_timeout_s, interval_s=1.0):
            raise StartupError(
                f"{server.name} did not answer within {self.settings.startup_timeout_s:.0f}s. "
                f"Last lines of {server.process.log_file}:\n{server.process.log_tail()}"
            )
        server.after_ready()
        self.say(f"{server.name}: ready ({time.monotonic() - began:.1f}s), ports {server.ports()}")


def _server_env(name: str) -> str:
    # Kafka node n's ports follow from the first node's (kafka-2 -> PROVGRAPH_KAFKA_PORT).
    return name.split("-", 1)[0].upper()


def _port_env(role: str) -> str:
    return {"broker": "PORT", "controller": "CONTROLLER_PORT", "bolt": "BOLT_PORT"}.get(
        role, f"{role.upper()}_PORT"
    )


__all__ = ["InfraError", "Launcher", "ServerStatus"]
