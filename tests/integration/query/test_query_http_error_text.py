"""No text of a Neo4j or driver error reaches an answer: an unreachable or refusing database,
during authentication or during a query, is answered with a generic message and a code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase
from support.http_service import free_port
from support.memory_stores import MemoryPrincipals

from provgraph.authz import Authenticator, Principal, hash_token, new_token
from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings

# What the driver's messages hold and an answer must not.
LEAKS = ("127.0.0.1", "refused", "Couldn't connect", "nosuchdb", "Traceback", "neo4j.exceptions")


def _no_leak(text: str, *more: str) -> None:
    for leak in (*LEAKS, *more):
        assert leak not in text, f"{leak!r} in {text}"


@pytest.fixture()
def unreachable(neo4j_endpoint: Any) -> Iterator[tuple[TestClient, int]]:
    """The query app over a Neo4j that does not listen (its own driver)."""
    port = free_port()
    uri, auth = f"bolt://127.0.0.1:{port}", (neo4j_endpoint.user, neo4j_endpoint.password)
    # No retries: the driver would otherwise keep trying for 30 s per request.
    with (
        GraphDatabase.driver(uri, auth=auth, max_transaction_retry_time=0) as driver,
        TestClient(create_app(QuerySettings(neo4j_uri=uri), driver=driver)) as client,
    ):
        yield client, port


def test_authentication_against_an_unreachable_store(
    unreachable: tuple[TestClient, int],
) -> None:
    client, port = unreachable
    headers = {"Authorization": f"Bearer {new_token()}"}
    for answer in (
        client.post("/graphql", json={"query": '{ search(text: "x") { id } }'}, headers=headers),
        client.post("/v1/cypher", json={"query": "RETURN 1"}, headers=headers),
        client.get("/api/v1/lineage", params={"nodeId": "run:x"}, headers=headers),
    ):
        assert answer.status_code == 503, answer.text
        error = answer.json()["error"]
        assert error == {
            "code": "auth_unavailable",
            "message": "the permission store cannot be read; retry later",
            "details": {},
        }
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["error"]["message"] == "Neo4j is not reachable"
    _no_leak(ready.text, str(port))


@pytest.fixture()
def wrong_database(neo4j_driver: Driver) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The query app reading a database that does not exist; callers authenticated in memory."""
    token = new_token()
    admin = Principal("user:root", frozenset({"admin"}))
    app = create_app(QuerySettings(neo4j_database="nosuchdb"), driver=neo4j_driver)
    with TestClient(app) as client:
        app.state.authenticator = Authenticator(MemoryPrincipals({hash_token(token): admin}))
        yield client, {"Authorization": f"Bearer {token}"}


def test_a_query_the_database_refuses(wrong_database: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = wrong_database
    graphql = client.post(
        "/graphql", json={"query": '{ node(id: "run:x") { id } }'}, headers=headers
    )
    [error] = graphql.json()["errors"]
    assert error["extensions"]["code"] == "unavailable"
    assert error["message"] == "the graph database could not answer"
    _no_leak(graphql.text)
    rest = client.get("/api/v1/lineage", params={"nodeId": "run:x"}, headers=headers)
    assert rest.status_code == 503
    assert rest.json()["error"]["message"] == "the graph database could not answer"
    _no_leak(rest.text)
    cypher = client.post("/v1/cypher", json={"query": "RETURN 1 AS x"}, headers=headers)
    assert cypher.status_code == 503
    assert cypher.json()["error"] == {
        "code": "unavailable",
        "message": "the graph database could not answer the query",
        "details": {"neo4j_code": "Neo.ClientError.Database.DatabaseNotFound"},
    }
    _no_leak(cypher.text)
