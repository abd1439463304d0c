"""Health, readiness, metrics and the error envelope; and the app served by uvicorn itself."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def client(neo4j_driver: Driver, admin_headers: dict[str, str]) -> Iterator[TestClient]:
    app = create_app(driver=neo4j_driver)
    with TestClient(app, raise_server_exceptions=False, headers=admin_headers) as test:
        yield test


def test_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready", "neo4j": "reachable"}


def test_readyz_is_503_when_neo4j_is_down() -> None:
    settings = QuerySettings(neo4j_uri=f"bolt://127.0.0.1:{_free_port()}")
    with TestClient(create_app(settings)) as client:
        started = time.monotonic()
        response = client.get("/readyz")
        assert time.monotonic() - started < 10  # bounded by the probe timeout, not a hang
        assert client.get("/healthz").status_code == 200  # alive, just not ready
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"


def test_metrics_count_requests_by_route_and_status(client: TestClient) -> None:
    client.get("/healthz")
    client.get("/healthz")
    client.post("/v1/cypher", json={"query": "CREATE (n)"})
    client.get("/no/such/path")
    text = client.get("/metrics").text
    assert 'provgraph_query_requests_total{method="GET",route="/healthz",status="200"} 2.0' in text
    assert (
        'provgraph_query_requests_total{method="POST",route="/v1/cypher",status="400"} 1.0' in text
    )
    assert 'provgraph_query_requests_total{method="GET",route="unmatched",status="404"} 1.0' in text
    assert 'provgraph_query_request_seconds_count{method="GET",route="/healthz"} 2.0' in text
    assert "provgraph_query_cypher_refused_total 1.0" in text


def test_errors_are_json_envelopes_without_traces(client: TestClient) -> None:
    missing = client.get("/no/such/path")
    assert missing.status_code == 404
    assert missing.json() == {"error": {"code": "not_found", "message": "Not Found", "details": {}}}
    wrong = client.get("/v1/cypher")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (405, "method_not_allowed")
    bad = client.post(
        "/v1/cypher", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "invalid_request")
    assert "Traceback" not in bad.text


def test_unexpected_errors_are_500_without_traces(client: TestClient) -> None:
    def boom(*_args: Any) -> Any:
        raise RuntimeError("secret internal detail")

    client.app.state.query.guard.run = boom  # type: ignore[attr-defined]
    response = client.post("/v1/cypher", json={"query": "RETURN 1"})
    assert response.status_code == 500
    error = response.json()["error"]
    assert (error["code"], error["message"]) == ("internal_error", "internal error")
    assert list(error["details"]) == ["reference"]
    assert "secret" not in response.text and "RuntimeError" not in response.text


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_uvicorn_factory_serves_the_app(neo4j_endpoint: Any) -> None:
    # How `provgraph services up` starts it: uvicorn provgraph.query.app:create_app --factory.
    port = _free_port()
    env = {
        **os.environ,
        "PROVGRAPH_NEO4J_URI": neo4j_endpoint.uri,
        "PROVGRAPH_NEO4J_USER": neo4j_endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j_endpoint.password,
    }
    argv = [sys.executable, "-m", "uvicorn", "provgraph.query.app:create_app", "--factory"]
    proc = subprocess.Popen([*argv, "--port", str(port)], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _ = _get(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "did not start"
                time.sleep(0.2)
        assert status == 200
        assert _get(f"http://127.0.0.1:{port}/readyz")[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_driver_given_is_not_closed(neo4j_endpoint: Any) -> None:
    auth = (neo4j_endpoint.user, neo4j_endpoint.password)
    with GraphDatabase.driver(neo4j_endpoint.uri, auth=auth) as driver:
        with TestClient(create_app(driver=driver)) as client:
            assert client.get("/readyz").status_code == 200
        driver.verify_connectivity()  # still usable: the caller owns it


def test_graphql_reads_through_what_the_lifespan_started(
    neo4j_driver: Driver, project: str, admin_headers: dict[str, str]
) -> None:
    run_id = f"run:{project}-graphql"
    neo4j_driver.execute_query(
        "CREATE (:Entity:Run {id: $id, project: $p, first_seen_at: $t, last_event_at: $t})",
        id=run_id,
        p=project,
        t="2026-01-05T09:00:00.000000Z",
    )
    with TestClient(create_app(driver=neo4j_driver)) as client:
        # The reader was built by the lifespan, after the router: it is resolved per request.
        query = {"query": "query($id: ID!) { node(id: $id) { type } }", "variables": {"id": run_id}}
        assert client.post("/graphql", json=query).status_code == 401
        answer = client.post("/graphql", json=query, headers=admin_headers)
        assert answer.json() == {"data": {"node": {"type": "Run"}}}
        page = client.get("/graphql", headers={"accept": "text/html"})  # the IDE needs no token
        assert "GraphiQL" in page.text
        metrics = client.get("/metrics").text
    assert (
        'provgraph_query_requests_total{method="POST",route="/graphql",status="200"} 1.0' in metrics
    )
