"""Session-wide endpoints of real Kafka and Neo4j servers, and per-test isolation.

Endpoints are found in this order:
  (a) env vars PROVGRAPH_KAFKA_BOOTSTRAP / PROVGRAPH_NEO4J_URI (+ _USER, _PASSWORD), as written
      by `provgraph infra up` into .provgraph/env and exported by `make test`;
  (b) testcontainers (KafkaContainer, Neo4jContainer) when a Docker engine answers;
  (c) the local launcher (`provgraph infra up`), which reuses servers already running.
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# The port contract suites (tests/contracts/) are modules, not test files: let pytest rewrite
# their asserts too, so that a failure shows the values.
pytest.register_assert_rewrite("contracts")

_MARKERS = ("unit", "integration", "e2e")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Options of the randomised fault run (tests/e2e/test_chaos.py)."""
    group = parser.getgroup("chaos", "the randomised fault run (tests/e2e/test_chaos.py)")
    group.addoption("--chaos-seed", type=int, default=None, help="repeat the run of this seed")
    group.addoption(
        "--chaos-long", action="store_true", help="ten minutes of faults, not the short form"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by its folder, so `-m unit` and `-m integration` select reliably."""
    for item in items:
        parts = Path(str(item.fspath)).parts
        for marker in _MARKERS:
            if marker in parts:
                item.add_marker(getattr(pytest.mark, marker))


@dataclass(frozen=True)
class Neo4jEndpoint:
    uri: str
    user: str
    password: str


@dataclass(frozen=True)
class Endpoints:
    kafka_bootstrap: str
    neo4j: Neo4jEndpoint
    source: str


def _docker_answers() -> bool:
    try:
        import docker

        client = docker.from_env(timeout=3)
        client.ping()
        return True
    except Exception:  # any failure means: no usable engine
        return False


def _from_env() -> Endpoints | None:
    bootstrap = os.environ.get("PROVGRAPH_KAFKA_BOOTSTRAP")
    uri = os.environ.get("PROVGRAPH_NEO4J_URI")
    if not (bootstrap and uri):
        return None
    neo4j = Neo4jEndpoint(
        uri,
        os.environ.get("PROVGRAPH_NEO4J_USER", "neo4j"),
        os.environ.get("PROVGRAPH_NEO4J_PASSWORD", ""),
    )
    return Endpoints(bootstrap, neo4j, "env")


@pytest.fixture(scope="session")
def endpoints() -> Iterator[Endpoints]:
    found = _from_env()
    if found is not None:
        yield found
        return
    if _docker_answers():
        yield from _containers()
        return
    from neo4j import GraphDatabase

    from provgraph.infra.launcher import Launcher
    from provgraph.ingest.projector.constraints import apply_schema

    launcher = Launcher(say=lambda _msg: None)
    launcher.up()
    s = launcher.settings
    endpoint = Neo4jEndpoint(s.neo4j_uri, s.neo4j_user, launcher.neo4j.password())
    with GraphDatabase.driver(endpoint.uri, auth=(endpoint.user, endpoint.password)) as driver:
        apply_schema(driver)
    yield Endpoints(s.kafka_bootstrap, endpoint, "launcher")


def _containers() -> Iterator[Endpoints]:
    from testcontainers.kafka import KafkaContainer
    from testcontainers.neo4j import Neo4jContainer

    from provgraph.ingest.projector.constraints import apply_schema

    with (
        KafkaContainer("apache/kafka:4.1.1").with_kraft() as kafka,
        Neo4jContainer("neo4j:5.26-community") as neo,
    ):
        endpoint = Neo4jEndpoint(neo.get_connection_url(), "neo4j", neo.password)
        with neo.get_driver() as driver:
            apply_schema(driver)
        yield Endpoints(kafka.get_bootstrap_server(), endpoint, "testcontainers")


@pytest.fixture(scope="session")
def kafka_bootstrap(endpoints: Endpoints) -> str:
    return endpoints.kafka_bootstrap


@pytest.fixture(scope="session")
def neo4j_endpoint(endpoints: Endpoints) -> Neo4jEndpoint:
    return endpoints.neo4j


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_endpoint: Neo4jEndpoint) -> Iterator[object]:
    from neo4j import GraphDatabase

    driver = GraphDatabase.driver(
        neo4j_endpoint.uri, auth=(neo4j_endpoint.user, neo4j_endpoint.password)
    )
    driver.verify_connectivity()
    yield driver
    driver.close()


@pytest.fixture()
def gc_thresholds_kept() -> Iterator[None]:
    """The interpreter's collector thresholds as they were before the test, whatever it set."""
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@pytest.fixture()
def unique_name(request: pytest.FixtureRequest) -> str:
    """A name no other test uses: topic names, projects, labels."""
    stem = "".join(ch if ch.isalnum() else "-" for ch in request.node.name.lower())[:40]
    return f"t-{stem.strip('-')}-{uuid.uuid4().hex[:8]}"


@pytest.fixture()
def kafka_topic(kafka_bootstrap: str, unique_name: str) -> Iterator[str]:
    """A fresh topic with 3 partitions, deleted after the test."""
    import time

    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import KafkaError, TopicAlreadyExistsError

    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    for attempt in range(5):
        # The admin client may see the broker as "not ready" for a moment after connecting.
        try:
            admin.create_topics([NewTopic(unique_name, num_partitions=3, replication_factor=1)])
            break
        except TopicAlreadyExistsError:
            break
        except KafkaError:
            if attempt == 4:
                raise
            time.sleep(0.5 * (attempt + 1))
    try:
        yield unique_name
    finally:
        admin.delete_topics([unique_name])
        admin.close()


@pytest.fixture()
def project(neo4j_driver: object, unique_name: str) -> Iterator[str]:
    """A project slug of this test alone; its nodes are removed afterwards."""
    from neo4j import Driver

    assert isinstance(neo4j_driver, Driver)
    slug = unique_name[:64]
    yield slug
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=slug)


@pytest.fixture()
def other_project(neo4j_driver: object, project: str) -> Iterator[str]:
    """A second project slug of this test alone (beside `project`); removed afterwards."""
    from neo4j import Driver

    assert isinstance(neo4j_driver, Driver)
    slug = f"{project[:60]}-q"
    yield slug
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=slug)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateServer:
    """A Kafka or Neo4j apart from the shared ones, on free loopback ports, that a test may
    stop and restart.

    Fault tests use it so that killing a server never disturbs the shared one.
    """

    def __init__(self, kind: str, home: Path) -> None:
        from provgraph.infra.kafka import KafkaServer
        from provgraph.infra.neo4j import Neo4jServer
        from provgraph.infra.settings import InfraSettings

        ports = {
            "kafka": {"kafka_port": _free_port(), "kafka_controller_port": _free_port()},
            "neo4j": {"neo4j_bolt_port": _free_port(), "neo4j_http_port": _free_port()},
        }[kind]
        self.settings = InfraSettings(
            home=home, kafka_heap="512m", neo4j_heap="512m", neo4j_pagecache="256m", **ports
        )
        self.server = (KafkaServer if kind == "kafka" else Neo4jServer)(self.settings)
        self._argv: list[str] | None = None

    @property
    def bootstrap(self) -> str:
        return self.settings.kafka_bootstrap

    @property
    def neo4j(self) -> Neo4jEndpoint:
        from provgraph.infra.neo4j import Neo4jServer

        assert isinstance(self.server, Neo4jServer)
        s = self.settings
        return Neo4jEndpoint(s.neo4j_uri, s.neo4j_user, self.server.password())

    def start(self, timeout_s: float = 120.0) -> None:
        from provgraph.infra.process import wait_until

        if self._argv is None:
            self._argv = self.server.prepare()
        self.server.process.start(self._argv)
        if not wait_until(self.server.is_ready, timeout_s, interval_s=0.5):
            raise RuntimeError(
                f"private {self.server.name} did not start:\n{self.server.process.log_tail()}"
            )
        self.server.after_ready()

    def stop(self) -> None:
        self.server.process.stop(timeout_s=30)

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        import signal

        pid = self.server.process.pid()
        if pid is not None:
            os.killpg(pid, signal.SIGKILL)
            from provgraph.infra.process import wait_until

            wait_until(lambda: self.server.process.pid() is None, 10.0)
            # A killed JVM lingers as a zombie while its threads exit: wait for its ports too.
            wait_until(lambda: not self._listening(), 30.0)

    def _listening(self) -> bool:
        from provgraph.infra.process import port_accepts

        return any(port_accepts(self.settings.host, p) for p in self.server.ports().values())


@pytest.fixture(scope="session")
def _private_kafka_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateServer]:
    """The fault tests' own Kafka broker, started when first asked and kept for the session."""
    server = PrivateServer("kafka", tmp_path_factory.mktemp("private-kafka"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def private_kafka(_private_kafka_server: PrivateServer) -> Iterator[PrivateServer]:
    """A started Kafka broker apart from the shared one, to stop, start and kill at will.

    One broker serves every test that asks, one test at a time (each names its own topics and
    consumer groups); a test that leaves it down hands it on restarted. Starting a broker
    costs 10 to 30 s here, so it is not started anew for each test.
    """
    server = _private_kafka_server
    if not server.server.is_ready():
        server.start()
    try:
        yield server
    finally:
        if not server.server.is_ready():
            server.start()


@pytest.fixture()
def private_neo4j(tmp_path: Path) -> Iterator[PrivateServer]:
    """A started Neo4j of this test alone, with the graph schema applied."""
    from neo4j import GraphDatabase

    from provgraph.ingest.projector.constraints import apply_schema

    server = PrivateServer("neo4j", tmp_path / "private-neo4j")
    server.start()
    endpoint = server.neo4j
    with GraphDatabase.driver(endpoint.uri, auth=(endpoint.user, endpoint.password)) as driver:
        apply_schema(driver)
    try:
        yield server
    finally:
        server.stop()


class AccessFixture:
    """Tokens and grants written into the shared Neo4j as the projector would fold them.

    In-process HTTP tests use it instead of a running projector: the same events, the same
    pure projection and the same writer, without Kafka.
    """

    def __init__(self, driver: object) -> None:
        from provgraph.ingest.projector.writer import GraphWriter

        self.writer = GraphWriter(driver)  # type: ignore[arg-type]

    def token(
        self,
        name: str,
        *,
        global_roles: tuple[str, ...] = (),
        grants: dict[str, tuple[str, ...]] | None = None,
    ) -> str:
        from provgraph.authz.admin import access_event, token_issued
        from provgraph.authz.tokens import new_token
        from provgraph.ingest.projection import project_event
        from provgraph.schemas.events.governance import AccessRole
        from provgraph.schemas.events.tokens import GlobalRole

        token = new_token()
        roles = [GlobalRole(r) for r in global_roles]
        events: list[object] = [token_issued(name, token, roles, "user:test")]
        for project, project_roles in (grants or {}).items():
            events += [
                access_event(name, project, AccessRole(r), "user:test", grant=True)
                for r in project_roles
            ]
        self.writer.write([project_event(e) for e in events])  # type: ignore[arg-type]
        return token

    def headers(self, name: str, **kwargs: object) -> dict[str, str]:
        """`Authorization` header of a fresh token (see `token`)."""
        return {"Authorization": f"Bearer {self.token(name, **kwargs)}"}  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def access(neo4j_driver: object) -> AccessFixture:
    return AccessFixture(neo4j_driver)


@pytest.fixture(scope="session")
def admin_headers(access: AccessFixture) -> dict[str, str]:
    """A global admin's `Authorization` header (in-process HTTP tests)."""
    return access.headers(f"service:test-admin-{uuid.uuid4().hex[:8]}", global_roles=("admin",))
