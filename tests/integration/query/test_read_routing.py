"""Every read runs as a read (a cluster may answer it from any member): the query service's
routes, `verify`'s read of the graph and ingest's lookups, through a thin recording proxy over
the REAL driver; and the service answers over both URI schemes, `neo4j://` and `bolt://`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, cast
from urllib.parse import urlsplit

import neo4j
import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, RoutingControl

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.graphread import (
    Neo4jDisciplineFacts,
    Neo4jOwners,
    Neo4jPayloadHashes,
    read_graph,
)
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings

Calls = list[tuple[str, str]]
"""(what was called, the access mode it ran in: READ or WRITE)."""


class RecordingSession:
    """A real session that notes how each of its transactions and queries is run."""

    def __init__(self, session: neo4j.Session, mode: str, calls: Calls) -> None:
        self._session, self._mode, self._calls = session, mode, calls

    def __enter__(self) -> RecordingSession:
        self._session.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._session.__exit__(*exc)

    def execute_read(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        self._calls.append(("execute_read", neo4j.READ_ACCESS))
        return self._session.execute_read(work, *args, **kwargs)

    def execute_write(self, work: Any, *args: Any, **kwargs: Any) -> Any:
        self._calls.append(("execute_write", neo4j.WRITE_ACCESS))
        return self._session.execute_write(work, *args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> neo4j.Result:
        # An auto-commit query runs in the session's own access mode.
        self._calls.append(("session.run", self._mode))
        return self._session.run(*args, **kwargs)

    def begin_transaction(self, *args: Any, **kwargs: Any) -> neo4j.Transaction:
        self._calls.append(("begin_transaction", self._mode))
        return self._session.begin_transaction(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class RecordingDriver:
    """The real driver, noting the access mode of every session and `execute_query` call."""

    def __init__(self, driver: Driver) -> None:
        self._driver = driver
        self.calls: Calls = []

    def session(self, **config: Any) -> RecordingSession:
        mode = config.get("default_access_mode", neo4j.WRITE_ACCESS)
        return RecordingSession(self._driver.session(**config), mode, self.calls)

    def execute_query(self, *args: Any, **kwargs: Any) -> Any:
        routing = RoutingControl(kwargs.get("routing_", RoutingControl.WRITE))
        read = routing is RoutingControl.READ
        self.calls.append(("execute_query", neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS))
        return self._driver.execute_query(*args, **kwargs)

    def close(self) -> None:
        """The test owns the real driver: nothing to close here."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)

    def as_driver(self) -> Driver:
        return cast(Driver, self)


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> str:
    """The demo story under this test's project (written through the real driver)."""
    GraphWriter(neo4j_driver).write(
        [project_event(e) for e in demo_events(project, with_sweep=False)]
    )
    return project


@pytest.fixture()
def recording(neo4j_driver: Driver) -> RecordingDriver:
    return RecordingDriver(neo4j_driver)


@pytest.fixture()
def auditor_headers(access: Any) -> dict[str, str]:
    """A global auditor may read everything, the Cypher endpoint included."""
    name = f"service:routing-auditor-{uuid.uuid4().hex[:8]}"
    return dict(access.headers(name, global_roles=("auditor",)))


@pytest.fixture()
def client(recording: RecordingDriver, auditor_headers: dict[str, str]) -> Iterator[TestClient]:
    app = create_app(QuerySettings(auth_cache_s=0.0), driver=recording.as_driver())
    with TestClient(app, headers=auditor_headers) as test:
        yield test


def _graphql(client: TestClient, query: str) -> dict[str, Any]:
    answer = client.post("/graphql", json={"query": query})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def _ask_every_kind_of_question(client: TestClient, p: str) -> None:
    model, data = f"model:{p}/chat-1b@1.0.0", f"dataset:{p}/web-corpus@v2"
    assert client.get("/readyz").json()["status"] == "ready"
    answered = _graphql(
        client,
        f"""{{ up: lineage(id: "model:{p}/base-1b@1.0.0", depth: 2) {{ nodes {{ id }} }}
               impact(id: "{data}") {{ node {{ id }} }}
               history(id: "{data}") {{ items {{ eventType }} }}
               reproduce(id: "{model}") diff(a: "model:{p}/base-1b@1.0.0", b: "{model}")
               dossier(id: "{model}") {{ id }} }}""",
    )
    assert answered["up"]["nodes"] and answered["impact"] and answered["dossier"]["id"] == model
    marquez = client.get("/api/v1/lineage", params={"nodeId": f"dataset:{p}/web-corpus"})
    assert marquez.status_code == 200 and marquez.json()["graph"]
    assert client.get(f"/v1/prov/{model}").status_code == 200
    cypher = client.post(
        "/v1/cypher",
        json={
            "query": "MATCH (n:Entity {project: $p}) RETURN count(n) AS n",
            "parameters": {"p": p},
        },
    )
    assert cypher.status_code == 200 and cypher.json()["rows"][0][0] > 0


def test_every_route_of_the_query_service_reads_in_read_mode(
    client: TestClient, recording: RecordingDriver, demo: str
) -> None:
    _ask_every_kind_of_question(client, demo)
    kinds = {kind for kind, _mode in recording.calls}
    # The readers and the token lookup (execute_query), the Cypher endpoint (EXPLAIN, then its
    # own transaction) and the readiness probe all went through the proxy ...
    assert {"begin_transaction", "session.run", "execute_query"} <= kinds
    # ... and not one of them asked for the writer.
    writes = [call for call in recording.calls if call[1] != neo4j.READ_ACCESS]
    assert writes == [], writes
    assert len(recording.calls) >= 10


def test_the_proxy_notes_a_write_when_one_is_made(recording: RecordingDriver) -> None:
    """The check above can fail: a default session, or execute_query without READ, is noted."""
    with recording.session(database="neo4j") as session:
        session.run("RETURN 1").consume()
    recording.execute_query("RETURN 1", database_="neo4j")
    assert recording.calls == [("session.run", "WRITE"), ("execute_query", "WRITE")]


def test_verifys_read_of_the_graph_and_ingests_lookups_read_in_read_mode(
    recording: RecordingDriver, neo4j_driver: Driver, demo: str
) -> None:
    graph = read_graph(recording.as_driver(), demo)
    assert graph.nodes and graph.edges
    assert graph.digest() == read_graph(neo4j_driver, demo).digest()
    driver = recording.as_driver()
    ids = [f"dataset:{demo}/web-corpus@v2", f"model:{demo}/chat-1b@1.0.0"]
    assert set(Neo4jOwners(driver).owners(ids)) == set(ids)
    assert Neo4jPayloadHashes(driver).payload_hashes(["no-such-event"]) == {}
    Neo4jDisciplineFacts(driver).discipline_facts([], [demo], [ids[0]], [ids[1]])
    # verify's read streams in transactions of its own (a sink cannot take records back on a
    # retry), the lookups go through execute_query: every one in read mode.
    kinds = {kind for kind, _mode in recording.calls}
    assert kinds == {"begin_transaction", "execute_query"}
    assert all(mode == neo4j.READ_ACCESS for _kind, mode in recording.calls), recording.calls


@pytest.mark.parametrize("scheme", ["neo4j", "bolt"])
def test_the_service_answers_over_either_scheme(
    scheme: str, neo4j_endpoint: Any, demo: str, admin_headers: dict[str, str]
) -> None:
    """`neo4j://` (the default: routing, as for a cluster) and `bolt://` (one server, direct)."""
    where = urlsplit(neo4j_endpoint.uri)
    settings = QuerySettings(
        neo4j_uri=f"{scheme}://{where.hostname}:{where.port}",
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
    )
    with TestClient(create_app(settings), headers=admin_headers) as client:
        assert client.get("/readyz").json() == {"status": "ready", "neo4j": "reachable"}
        data = _graphql(
            client, f'{{ impact(id: "dataset:{demo}/web-corpus@v2") {{ node {{ id }} }} }}'
        )
    assert f"deployment:{demo}/chat-api" in {item["node"]["id"] for item in data["impact"]}
