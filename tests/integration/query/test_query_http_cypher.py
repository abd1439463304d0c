"""POST /v1/cypher against the real Neo4j: refused queries change nothing; reads answer exactly."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from cypher_checks import snapshot
from fastapi.testclient import TestClient
from neo4j import Driver
from neo4j.exceptions import ClientError

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.errors import ForbiddenQueryError
from provgraph.query.http.guard import CypherGuard
from provgraph.query.settings import QuerySettings

ROW_CAP = 5
TIMEOUT_S = 1.0


@pytest.fixture()
def graph(neo4j_driver: Driver, project: str) -> str:
    """The demo story under this test's project."""
    GraphWriter(neo4j_driver).write(
        [project_event(e) for e in demo_events(project, with_sweep=False)]
    )
    return project


@pytest.fixture(scope="module")
def auditor_headers(access: Any) -> dict[str, str]:
    """The endpoint is for global auditors only."""
    return dict(
        access.headers(f"service:auditor-{uuid.uuid4().hex[:8]}", global_roles=("auditor",))
    )


@pytest.fixture()
def client(neo4j_driver: Driver, auditor_headers: dict[str, str]) -> Iterator[TestClient]:
    settings = QuerySettings(cypher_row_cap=ROW_CAP, cypher_timeout_s=TIMEOUT_S)
    app = create_app(settings, driver=neo4j_driver)
    with TestClient(app, headers=auditor_headers) as test_client:
        yield test_client


def _cypher(client: TestClient, query: str, **parameters: Any) -> Any:
    return client.post("/v1/cypher", json={"query": query, "parameters": parameters})


REFUSED = {
    "create": "CREATE (:Entity {project: $p, id: $p + '-new'})",
    "merge": "MERGE (n:Entity {project: $p, id: $p + '-merged'}) RETURN n",
    "set": "MATCH (n:Entity {project: $p}) SET n.hacked = true",
    "delete": "MATCH (n:Entity {project: $p}) WHERE NOT (n)--() DELETE n",
    "detach delete": "MATCH (n:Entity {project: $p}) DETACH DELETE n",
    "remove": "MATCH (n:Entity {project: $p}) REMOVE n.name",
    "remove label": "MATCH (n:Entity {project: $p}) REMOVE n:Entity",
    "foreach set": "MATCH (n:Entity {project: $p}) FOREACH (x IN [1] | SET n.hacked = x)",
    "create index": "CREATE INDEX guard_test_index FOR (n:GuardTest) ON (n.p)",
    "create constraint": "CREATE CONSTRAINT guard_test_c FOR (n:GuardTest) REQUIRE n.p IS UNIQUE",
    "drop index": "DROP INDEX entity_project IF EXISTS",
    "drop constraint": "DROP CONSTRAINT entity_id_unique IF EXISTS",
    "load csv": "LOAD CSV FROM 'file:///x.csv' AS row CREATE (:Entity {project: $p})",
    "in transactions": "MATCH (n:Entity {project: $p}) CALL (n) { DETACH DELETE n } "
    "IN TRANSACTIONS OF 1 ROWS",
    "two statements": "MATCH (n:Entity {project: $p}) RETURN n; "
    "MATCH (n:Entity {project: $p}) DETACH DELETE n",
    "dbms procedure": "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
    "db.createLabel": "CALL db.createLabel('GuardTestLabel')",
    "write after read": "MATCH (n:Entity {project: $p}) WITH n ORDER BY n.id LIMIT 1 "
    "CREATE (n)-[:DERIVED_FROM]->(:Entity {project: $p, id: $p + '-x'})",
    "write in subquery": "MATCH (n:Entity {project: $p}) CALL (n) { SET n.hacked = 1 } "
    "RETURN count(*)",
    "use system": "USE system SHOW USERS",
    "terminate": "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "show transactions": "SHOW TRANSACTIONS",
}


@pytest.mark.parametrize("query", REFUSED.values(), ids=REFUSED.keys())
def test_refused_query_changes_nothing(
    client: TestClient, neo4j_driver: Driver, graph: str, query: str
) -> None:
    before = snapshot(neo4j_driver, graph)
    response = _cypher(client, query, p=graph)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "forbidden_query"
    assert error["message"].startswith("refused: ") and error["details"]["reason"]
    assert snapshot(neo4j_driver, graph) == before


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("CREATE (n:Entity {project: $p}) RETURN n", "it reads and writes the graph"),
        ("MATCH (n:Entity {project: $p}) SET n.hacked = 1", "it writes to the graph"),
        ("CREATE INDEX guard_test_i2 FOR (n:GuardTest) ON (n.q)", "it changes the schema"),
    ],
)
def test_explain_names_the_query_type(
    client: TestClient, graph: str, query: str, reason: str
) -> None:
    # These pass the static check: EXPLAIN's query type is what refuses them.
    assert _cypher(client, query, p=graph).json()["error"]["details"]["reason"].startswith(reason)


WRITES = {
    "create": "CREATE (:Entity {project: $p})",
    "merge": "MERGE (n:Entity {project: $p, id: $p + '-merged'}) RETURN n",
    "set": "MATCH (n:Entity {project: $p}) SET n.hacked = true",
    "delete": "MATCH (n:Entity {project: $p}) DETACH DELETE n",
    "create label procedure": "CALL db.createLabel('GuardTestLabel')",
    "create property procedure": "CALL db.createProperty('guardTestProperty')",
}


@pytest.mark.parametrize("query", WRITES.values(), ids=WRITES.keys())
def test_read_access_mode_refuses_writes_on_its_own(
    neo4j_driver: Driver, graph: str, query: str
) -> None:
    # The last layer alone, without the text filter or EXPLAIN: the server refuses writes in a
    # READ transaction, whatever the query says.
    guard = CypherGuard(neo4j_driver, "neo4j", timeout_s=5, row_cap=10)
    before = snapshot(neo4j_driver, graph)
    with guard.session() as session, pytest.raises(ClientError) as caught:
        guard.fetch(session, query, {"p": graph})
    assert caught.value.code == "Neo.ClientError.Statement.AccessMode"
    refusal = guard.translate(caught.value)
    assert isinstance(refusal, ForbiddenQueryError)
    assert refusal.message == "refused: the query writes, and runs in a read transaction"
    assert snapshot(neo4j_driver, graph) == before


def test_read_query_returns_exact_rows(client: TestClient, graph: str) -> None:
    query = (
        "MATCH (r:Run {project: $p})-[u:USED]->(d:DatasetVersion) "
        "RETURN d.name AS dataset, d.version AS version, u.role AS role ORDER BY dataset"
    )
    answer = _cypher(client, query, p=graph).json()
    assert answer == {
        "columns": ["dataset", "version", "role"],
        "rows": [
            ["heldout", "v1", "validation"],
            ["instruct", "v1-clean", "train"],
            ["web-corpus", "v2", "train"],
        ],
        "truncated": False,
        "row_count": 3,
    }


def test_nodes_relationships_and_paths_as_json(client: TestClient, graph: str) -> None:
    query = "MATCH p = (d:Deployment {project: $p})-[s:SERVES]->(m:ModelVersion) RETURN m, s, p"
    [[model, serves, path]] = _cypher(client, query, p=graph).json()["rows"]
    assert model["id"] == f"model:{graph}/chat-1b@1.0.0"
    assert model["labels"] == ["Entity", "ModelVersion"]
    assert model["properties"]["name"] == "chat-1b"
    assert not [key for key in model["properties"] if key.startswith("_v")]
    assert (serves["type"], serves["start"], serves["end"]) == (
        "SERVES",
        f"deployment:{graph}/chat-api",
        model["id"],
    )
    assert [n["id"] for n in path["nodes"]] == [serves["start"], model["id"]]
    assert [r["type"] for r in path["relationships"]] == ["SERVES"]


def test_values_travel_as_parameters(client: TestClient, graph: str) -> None:
    hostile = "x' }) DETACH DELETE n //; MATCH (n) DETACH DELETE n"
    answer = _cypher(client, "RETURN $s AS s, $m AS m", s=hostile, m={"a": [1, "b"]}).json()
    assert answer["rows"] == [[hostile, {"a": [1, "b"]}]]
    query = "MATCH (m:ModelVersion {project: $p, name: $name}) RETURN m.version AS v"
    assert _cypher(client, query, p=graph, name="base-1b").json()["rows"] == [["1.0.0"]]


LABELS = "CALL db.labels() YIELD label WHERE label IN $wanted RETURN label ORDER BY label"


def test_read_only_procedures_are_allowed(client: TestClient, graph: str) -> None:
    answer = _cypher(client, LABELS, wanted=["Entity", "ModelVersion"]).json()
    assert answer["rows"] == [["Entity"], ["ModelVersion"]]


def test_row_cap_reports_truncated(client: TestClient) -> None:
    capped = _cypher(client, "UNWIND range(1, 1000000) AS x RETURN x").json()
    assert capped == {
        "columns": ["x"],
        "rows": [[1], [2], [3], [4], [5]],
        "truncated": True,
        "row_count": 5,
    }
    exact = _cypher(client, "UNWIND range(1, $n) AS x RETURN x", n=ROW_CAP).json()
    assert (exact["row_count"], exact["truncated"]) == (ROW_CAP, False)


def test_slow_query_times_out(client: TestClient) -> None:
    # ~5e8 rows: about a minute without the timeout, so a broken timeout cannot hang forever.
    query = (
        "UNWIND range(1, 22000) AS a UNWIND range(1, 22000) AS b "
        "WITH a, b WHERE a * b = -1 RETURN count(*) AS c"
    )
    started = time.monotonic()
    response = _cypher(client, query)
    assert time.monotonic() - started < 15
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "limit_exceeded"
    assert error["details"] == {"timeout_s": TIMEOUT_S}


def test_syntax_error_is_invalid_argument(client: TestClient) -> None:
    response = _cypher(client, "MATCH (n RETURN n")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_argument"


def test_malformed_body_is_invalid_request(client: TestClient) -> None:
    response = client.post("/v1/cypher", json={"parameters": {}})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
