"""Errors that say what is wrong, over real HTTP against the demo story in Neo4j: a malformed id
is `invalid_id`, an unknown one `not_found`; a diff names its missing side; every malformed
request, down to one uvicorn cannot parse, answers the JSON error body; 401 is counted."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from neo4j import Driver
from support.http_service import free_port, raw_exchange, served

from provgraph.cli.demo_story import demo_events
from provgraph.cli.services import app_specs
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app


@pytest.fixture(scope="module")
def url(neo4j_driver: Driver) -> Iterator[str]:
    with served(create_app(driver=neo4j_driver)) as base:
        yield base


@pytest.fixture()
def http(url: str, neo4j_driver: Driver, project: str, access: Any) -> Iterator[httpx.Client]:
    """A reader of this test's project, whose demo story is in Neo4j."""
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    reader = access.headers(f"service:reader-{project[-8:]}", grants={project: ("reader",)})
    with httpx.Client(base_url=url, headers=reader, timeout=30) as client:
        yield client


def graphql(http: httpx.Client, query: str) -> dict[str, Any]:
    answer = http.post("/graphql", json={"query": query})
    assert answer.status_code == 200
    body: dict[str, Any] = answer.json()
    return body


def only_error(body: dict[str, Any]) -> dict[str, Any]:
    (error,) = body["errors"]
    assert set(error) == {"message", "locations", "path", "extensions"}
    result: dict[str, Any] = error
    return result


def test_graphql_malformed_id_is_invalid_id_and_unknown_id_not_found(
    http: httpx.Client, project: str
) -> None:
    malformed = only_error(graphql(http, '{ node(id: "not-an-id") { id } }'))
    assert malformed["extensions"] == {"code": "invalid_id"}
    assert malformed["message"] == (
        "Invalid id in argument 'id': typed id 'not-an-id' has no '<kind>:' prefix "
        "(e.g. 'run:<run_id>')."
    )
    unknown = only_error(graphql(http, f'{{ node(id: "run:{project}-nope") {{ id }} }}'))
    assert unknown["extensions"] == {"code": "not_found"}
    assert unknown["message"] == f"Not found: run:{project}-nope."
    known = graphql(http, f'{{ node(id: "run:{project}-demo-pretrain-001") {{ id }} }}')
    assert known == {"data": {"node": {"id": f"run:{project}-demo-pretrain-001"}}}


@pytest.mark.parametrize(
    ("field", "argument"),
    [
        ('lineage(id: "ID") { truncated }', "id"),
        ('impact(id: "ID") { node { id } }', "id"),
        ('history(id: "ID") { nextCursor }', "id"),
        ('reproduce(id: "ID")', "id"),
        ('diff(a: "run:P-demo-pretrain-001", b: "ID")', "b"),
        ('path(from: "ID", to: "run:P-demo-pretrain-001") { nodes { id } }', "from"),
    ],
)
def test_every_id_argument_is_checked(
    http: httpx.Client, project: str, field: str, argument: str
) -> None:
    query = "{ " + field.replace("ID", "model:chat-1b").replace("P", project) + " }"
    error = only_error(graphql(http, query))
    assert error["extensions"] == {"code": "invalid_id"}
    assert error["message"].startswith(f"Invalid id in argument '{argument}': malformed model ")
    assert "expected model:<project>/<name>" in error["message"]


def test_diff_names_the_missing_side(http: httpx.Client, project: str) -> None:
    known, unknown = f"run:{project}-demo-pretrain-001", f"run:{project}-nope"
    body = graphql(http, f'{{ diff(a: "{unknown}", b: "{known}") }}')
    assert body["data"] == {"diff": None}
    error = only_error(body)
    assert error["extensions"] == {"code": "not_found"}
    assert error["message"] == f"Not found: {unknown} (argument a)."
    body = graphql(http, f'{{ diff(a: "{known}", b: "{unknown}") }}')
    assert only_error(body)["message"] == f"Not found: {unknown} (argument b)."


def test_rest_malformed_id_is_400_invalid_id_and_unknown_404(
    http: httpx.Client, project: str
) -> None:
    malformed = http.get("/api/v1/lineage", params={"nodeId": "not-an-id"})
    assert malformed.status_code == 400
    assert malformed.json()["error"] == {
        "code": "invalid_id",
        "message": "Invalid id in argument 'nodeId': typed id 'not-an-id' has no '<kind>:' "
        "prefix (e.g. 'run:<run_id>').",
        "details": {"argument": "nodeId", "value": "not-an-id"},
    }
    unknown = http.get("/api/v1/lineage", params={"nodeId": f"run:{project}-nope"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"


def test_a_malformed_id_without_a_token_is_still_401(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as anonymous:
        answer = anonymous.get("/api/v1/lineage", params={"nodeId": "not-an-id"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (401, "unauthenticated")


def error_of(answer: httpx.Response) -> tuple[int, str]:
    assert answer.headers["content-type"] == "application/json"
    return answer.status_code, str(answer.json()["error"]["code"])


def test_malformed_requests_are_json_with_a_clear_code(http: httpx.Client) -> None:
    json_type = {"content-type": "application/json"}
    bad_json = http.post("/graphql", content=b'{"query": ', headers=json_type)
    assert error_of(bad_json) == (400, "malformed_json")
    assert bad_json.json()["error"]["details"] == {"line": 1, "column": 11, "position": 10}
    text = http.post("/graphql", content=b"{ node }", headers={"content-type": "text/plain"})
    assert error_of(text) == (415, "unsupported_media_type")
    assert error_of(http.post("/graphql", json={"variables": {}})) == (400, "invalid_request")
    assert error_of(http.post("/graphql", json=[{"query": "{ __typename }"}])) == (
        400,
        "invalid_request",
    )
    cypher = http.post("/v1/cypher", content=b"{", headers=json_type)
    assert error_of(cypher) == (422, "invalid_request")
    assert cypher.json()["error"]["message"] == "invalid request: body.1: JSON decode error"
    no_node = http.get("/api/v1/lineage")
    assert error_of(no_node) == (422, "invalid_request")
    assert no_node.json()["error"]["message"] == "invalid request: query.nodeId: Field required"
    assert error_of(http.get("/no/such/path")) == (404, "not_found")
    assert error_of(http.put("/graphql", json={})) == (405, "method_not_allowed")
    assert error_of(http.get("/v1/cypher")) == (405, "method_not_allowed")


CONTENT_LENGTH_ABC = b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nx"


@pytest.mark.parametrize(
    ("request_bytes", "reason"),
    [
        (CONTENT_LENGTH_ABC, "bad Content-Length"),
        (b"GARBAGE\r\n\r\n", "illegal request line"),
        (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", "illegal request line"),  # TLS hello
    ],
    ids=["content-length", "request-line", "tls"],
)
def test_requests_uvicorn_cannot_parse_get_the_json_error(
    url: str, request_bytes: bytes, reason: str
) -> None:
    status, headers, body = raw_exchange(url, request_bytes)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request"
    assert error["message"].startswith(f"the HTTP request cannot be read: {reason}")


def requests_total(http: httpx.Client, **labels: str) -> float:
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in http.get("/metrics").text.splitlines():
        if line.startswith(f"provgraph_query_requests_total{{{wanted}}} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_401_and_403_are_counted_with_their_route_and_status(url: str, http: httpx.Client) -> None:
    graphql_401 = {"method": "POST", "route": "/graphql", "status": "401"}
    cypher_403 = {"method": "POST", "route": "/v1/cypher", "status": "403"}
    before = requests_total(http, **graphql_401), requests_total(http, **cypher_403)
    with httpx.Client(base_url=url, timeout=30) as anonymous:
        refused = anonymous.post("/graphql", json={"query": "{ __typename }"})
    forbidden = http.post("/v1/cypher", json={"query": "RETURN 1"})  # a reader is no auditor
    assert error_of(refused) == (401, "unauthenticated")
    assert error_of(forbidden) == (403, "forbidden")
    after = requests_total(http, **graphql_401), requests_total(http, **cypher_403)
    assert (after[0] - before[0], after[1] - before[1]) == (1.0, 1.0)


def test_the_service_as_started_by_services_up_answers_json_protocol_errors(
    neo4j_endpoint: Any,
) -> None:
    # `provgraph services up` starts uvicorn's command line with these arguments.
    port = free_port()
    (argv,) = [s.argv for s in app_specs(InfraSettings(query_port=port)) if s.name == "query"]
    env = {
        **os.environ,
        "PROVGRAPH_NEO4J_URI": neo4j_endpoint.uri,
        "PROVGRAPH_NEO4J_USER": neo4j_endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j_endpoint.password,
    }
    proc = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, "did not start"
                time.sleep(0.2)
        status, headers, body = raw_exchange(base, CONTENT_LENGTH_ABC)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"] == "bad_request"
