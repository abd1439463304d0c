"""Attempts to get past the Cypher endpoint's guard, against the real Neo4j.

Every payload is tried twice: through the endpoint (all layers), and with the text filter
turned off (only what the server says about the query, and the READ transaction). Either way
it must be refused with a clear answer, leave the graph unchanged, make no request to a canary
HTTP server on loopback (LOAD CSV), and leave a victim transaction alive (TERMINATE).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from cypher_checks import Canary, canary, snapshot
from fastapi.testclient import TestClient
from neo4j import Driver, ManagedTransaction, Transaction

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.errors import ForbiddenQueryError, InvalidArgumentError
from provgraph.query.http.guard import CypherGuard
from provgraph.query.settings import QuerySettings

REFUSED = frozenset({"forbidden_query"})
# Also a clear refusal: what the server cannot even compile (an unknown procedure or function,
# a syntax error) is answered `invalid_argument` with the server's reason.
NOT_RUN = frozenset({"forbidden_query", "invalid_argument"})


@dataclass(frozen=True)
class Payload:
    query: str
    codes: frozenset[str] = REFUSED
    params: dict[str, Any] = field(default_factory=dict)


PAYLOADS = {
    # -- comments: Cypher ends a // comment at a carriage return as well
    "cr comment hides load csv": Payload(
        "WITH 1 AS a // x\rLOAD CSV FROM\n'{url}/c1' AS r RETURN r"
    ),
    "block comment splits load csv": Payload("LOAD/**/CSV FROM '{url}/c2' AS r RETURN r"),
    "cr comment hides terminate": Payload("// x\rTERMINATE TRANSACTIONS\n'{tx}'"),
    "cr comment hides a write": Payload(
        "MATCH (n:Entity {project: $p}) // \rSET n.hacked = 1\nRETURN n"
    ),
    "comment inside a procedure name": Payload(
        "CALL dbms./* x */components() YIELD name RETURN name"
    ),
    # -- unicode: other spaces, escapes, look-alike letters
    "no-break space": Payload("LOAD\u00a0CSV FROM '{url}/u1' AS r RETURN r"),
    "vertical tab": Payload("LOAD\x0bCSV FROM '{url}/u2' AS r RETURN r"),
    "unicode escape in a keyword": Payload("\\u004cOAD CSV FROM '{url}/u3' AS r RETURN r", NOT_RUN),
    "fullwidth keyword": Payload(
        "\uff2c\uff2f\uff21\uff24 CSV FROM '{url}/u4' AS r RETURN r", NOT_RUN
    ),
    "unicode escape in a procedure name": Payload("CALL `db\\u002eclearQueryCaches`()", NOT_RUN),
    # -- strings
    "url built from strings": Payload("WITH '{url}' AS u LOAD CSV FROM u + '/s1' AS r RETURN r"),
    "url in a parameter": Payload("LOAD CSV FROM $url AS r RETURN r", params={"url": "{url}/s2"}),
    "escaped quote then a cr comment": Payload(
        "WITH 'it\\'s // ' AS s // \rLOAD CSV FROM\n'{url}/s3' AS r RETURN r"
    ),
    "clauses inside a string": Payload(
        "MATCH (n:Entity {project: $p}) WITH n, 'LOAD CSV; DELETE' AS s SET n.note = s"
    ),
    # -- CALL { } subqueries
    "load csv in a subquery": Payload(
        "CALL () { LOAD CSV FROM '{url}/q1' AS r RETURN r } RETURN r"
    ),
    "load csv in a correlated subquery": Payload(
        "UNWIND [1] AS x CALL (x) { LOAD CSV FROM '{url}/q2' AS r RETURN r } RETURN r"
    ),
    "procedure in a subquery": Payload(
        "CALL () { CALL dbms.components() YIELD name RETURN name } RETURN name"
    ),
    "procedure in a COUNT subquery": Payload(
        "RETURN COUNT { CALL db.clearQueryCaches() YIELD value RETURN value } AS c"
    ),
    "merge in a subquery": Payload(
        "CALL () { MERGE (n:Entity {project: $p, id: $p + '-m'}) RETURN n } RETURN n"
    ),
    "in transactions": Payload(
        "MATCH (n:Entity {project: $p}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1 ROWS"
    ),
    # -- administration commands
    "terminate": Payload("TERMINATE TRANSACTIONS '{tx}'"),
    "terminate from a parameter": Payload("TERMINATE TRANSACTIONS $ids", params={"ids": ["{tx}"]}),
    "show transactions": Payload("SHOW TRANSACTIONS YIELD transactionId RETURN transactionId"),
    "show settings": Payload("SHOW SETTINGS YIELD name, value RETURN name, value"),
    "show users": Payload("SHOW USERS"),
    "show databases": Payload("SHOW DATABASES"),
    "use system": Payload("USE system SHOW USERS", NOT_RUN),
    "use system to read": Payload("USE system MATCH (n) RETURN count(n) AS c", NOT_RUN),
    # -- procedures: dbms.*, admin db.*, plugins
    "dbms.components": Payload("CALL dbms.components()"),
    "quoted dbms.listConfig": Payload("CALL `dbms`.`listConfig`() YIELD name RETURN name"),
    "dbms.setConfigValue": Payload(
        "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')", NOT_RUN
    ),
    "db.clearQueryCaches": Payload("CALL db.clearQueryCaches()"),
    "apoc.load.json": Payload("CALL apoc.load.json('{url}/a1') YIELD value RETURN value", NOT_RUN),
    "quoted apoc.load.csv": Payload(
        "CALL `apoc`.`load`.`csv`('{url}/a2', {}) YIELD list RETURN list", NOT_RUN
    ),
    "apoc function": Payload("RETURN apoc.load.jsonParams('{url}/a3', {}, null) AS v", NOT_RUN),
    # -- writes hidden in names, strings and backticks
    "label in backticks": Payload("MATCH (n:Entity {project: $p}) SET n:`Hacked`"),
    "property named DELETE": Payload(
        "MATCH (n:Entity {project: $p}) SET n.`DELETE` = 'DETACH DELETE n'"
    ),
    "variable named CREATE": Payload(
        "MATCH (`CREATE`:Entity {project: $p}) WHERE NOT (`CREATE`)--() DELETE `CREATE`"
    ),
    "quote trick before a write": Payload(
        'MATCH (n:Entity {project: $p}) WITH n, "\'; CREATE (m)" AS s REMOVE n.name'
    ),
    "two statements": Payload(
        "MATCH (n:Entity {project: $p}) RETURN n; MATCH (n:Entity {project: $p}) DETACH DELETE n",
        NOT_RUN,
    ),
}


@pytest.fixture()
def graph(neo4j_driver: Driver, project: str) -> str:
    """The demo story under this test's project."""
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    return project


@pytest.fixture(scope="module")
def auditor_headers(access: Any) -> dict[str, str]:
    name = f"service:auditor-{uuid.uuid4().hex[:8]}"
    return dict(access.headers(name, global_roles=("auditor",)))


@pytest.fixture()
def client(neo4j_driver: Driver, auditor_headers: dict[str, str]) -> Iterator[TestClient]:
    app = create_app(QuerySettings(cypher_timeout_s=5.0), driver=neo4j_driver)
    with TestClient(app, headers=auditor_headers) as test_client:
        yield test_client


@pytest.fixture()
def server() -> Iterator[Canary]:
    with canary() as running:
        yield running


@dataclass
class Victim:
    """An open transaction of another client, which TERMINATE payloads name."""

    tx: Transaction
    id: str

    def alive(self) -> bool:
        return self.tx.run("RETURN 1 AS one").single(strict=True)["one"] == 1


@pytest.fixture()
def victim(neo4j_driver: Driver) -> Iterator[Victim]:
    marker = uuid.uuid4().hex
    with neo4j_driver.session(database="neo4j") as session:
        tx = session.begin_transaction(metadata={"guard_victim": marker})
        tx.run("RETURN 1").consume()

        def find(read: ManagedTransaction) -> str:
            query = (
                "SHOW TRANSACTIONS YIELD transactionId, metaData "
                "WHERE metaData.guard_victim = $m RETURN transactionId"
            )
            return str(read.run(query, m=marker).single(strict=True)["transactionId"])

        with neo4j_driver.session(database="neo4j") as other:
            victim_id = other.execute_read(find)
        yield Victim(tx, victim_id)
        tx.rollback()


def _filled(value: Any, url: str, tx: str) -> Any:
    if isinstance(value, str):
        return value.replace("{url}", url).replace("{tx}", tx)
    if isinstance(value, list):
        return [_filled(v, url, tx) for v in value]
    return value


def _unfilled(payload: Payload, server: Canary, victim: Victim, graph: str) -> tuple[str, Any]:
    query = _filled(payload.query, server.url, victim.id)
    params = {
        "p": graph,
        **{k: _filled(v, server.url, victim.id) for k, v in payload.params.items()},
    }
    return query, params


def _unchanged(before: Any, driver: Driver, graph: str, server: Canary, victim: Victim) -> None:
    assert snapshot(driver, graph) == before
    assert server.requests == [], "the database server fetched a URL"
    assert victim.alive(), "the victim transaction was terminated"


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_endpoint_refuses(
    client: TestClient,
    neo4j_driver: Driver,
    graph: str,
    server: Canary,
    victim: Victim,
    payload: Payload,
) -> None:
    query, params = _unfilled(payload, server, victim, graph)
    before = snapshot(neo4j_driver, graph)
    response = client.post("/v1/cypher", json={"query": query, "parameters": params})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] in payload.codes, error
    assert error["message"]
    if error["code"] == "forbidden_query":
        assert error["message"].startswith("refused: ") and error["details"]["reason"]
    _unchanged(before, neo4j_driver, graph, server, victim)


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_server_layers_refuse_without_the_text_filter(
    neo4j_driver: Driver, graph: str, server: Canary, victim: Victim, payload: Payload
) -> None:
    # What stands when the text filter is fooled: EXPLAIN's summary and plan, and the READ
    # transaction. Nothing here reads the query text.
    guard = CypherGuard(
        neo4j_driver, "neo4j", timeout_s=5.0, row_cap=10, prefilter=lambda query, _db: query
    )
    query, params = _unfilled(payload, server, victim, graph)
    before = snapshot(neo4j_driver, graph)
    expected = (ForbiddenQueryError, InvalidArgumentError)
    with pytest.raises(expected) as caught:
        guard.run(query, params)
    assert caught.value.code in payload.codes
    _unchanged(before, neo4j_driver, graph, server, victim)


def test_the_canary_would_see_a_request(server: Canary) -> None:
    # The canary is live: a refusal above is the guard's doing, not a dead server.
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/probe", timeout=5) as answer:
        assert answer.read() == b"a,b\n"
    assert server.requests == ["/probe"]
