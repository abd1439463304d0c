"""Every malformed request the ingest service can see answers the JSON error body, and every
answer of the event routes is counted, 401 and 403 included. Real HTTP (uvicorn on a free
port, the services' own HTTP protocol), real Kafka."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from kafka import KafkaAdminClient
from prometheus_client.parser import text_string_to_metric_families
from support.http_service import raw_exchange, served

from provgraph.ingest.app import create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload

MAX_BODY = 4096


@pytest.fixture(scope="module")
def url(kafka_bootstrap: str, neo4j_endpoint: Any) -> Iterator[str]:
    """One ingest service on its own fresh topics."""
    topic = f"t-ingest-errors-{uuid.uuid4().hex[:8]}"
    settings = IngestSettings(
        kafka_bootstrap=kafka_bootstrap,
        events_topic=topic,
        dead_letter_topic=f"{topic}.dlq",
        topic_partitions=1,
        max_body_bytes=MAX_BODY,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        auth_cache_s=0.0,
    )
    try:
        with served(create_app(settings)) as base:
            yield base
    finally:
        admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        admin.delete_topics([settings.events_topic, settings.dead_letter_topic])
        admin.close()


UNPARSABLE = [
    b"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nx",
    b"GARBAGE\r\n\r\n",
    b"POST /v1/events HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n",
]


@pytest.mark.parametrize("request_bytes", UNPARSABLE, ids=["content-length", "line", "header"])
def test_requests_uvicorn_cannot_parse_get_the_json_error(url: str, request_bytes: bytes) -> None:
    status, headers, body = raw_exchange(url, request_bytes)
    assert status.startswith("HTTP/1.1 400 ")
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request"
    assert error["message"].startswith("the HTTP request cannot be read: ")
    assert error["details"] == {}


def test_content_length_error_says_what_is_wrong(url: str) -> None:
    _, _, body = raw_exchange(url, UNPARSABLE[0])
    assert json.loads(body)["error"]["message"].endswith("bad Content-Length")


def error_of(answer: httpx.Response) -> tuple[int, str]:
    assert answer.headers["content-type"] == "application/json"
    return answer.status_code, str(answer.json()["error"]["code"])


def test_malformed_requests_the_app_sees_are_json_with_a_clear_code(
    url: str, admin_headers: dict[str, str]
) -> None:
    with httpx.Client(base_url=url, headers=admin_headers, timeout=30) as http:
        json_type = {"content-type": "application/json"}
        assert error_of(http.post("/v1/events", content=b"[{", headers=json_type)) == (
            400,
            "malformed_json",
        )
        text_type = {"content-type": "text/plain"}
        assert error_of(http.post("/v1/events", content=b"hello", headers=text_type)) == (
            400,
            "malformed_json",
        )
        too_large = b"[" + b" " * MAX_BODY + b"]"
        assert error_of(http.post("/v1/events", content=too_large)) == (413, "body_too_large")
        assert error_of(http.get("/v1/nothing-here")) == (404, "not_found")
        assert error_of(http.get("/v1/events")) == (405, "method_not_allowed")


def requests_by_status(http: httpx.Client) -> dict[str, float]:
    text = http.get("/metrics").text
    return {
        sample.labels["status"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "provgraph_ingest_requests"
        for sample in family.samples
        if sample.name == "provgraph_ingest_requests_total"
    }


def an_event(project: str) -> Any:
    payload = RunStartedPayload(run_id=f"r-{uuid.uuid4().hex[:8]}")
    event = RunStarted.create(
        project=project, producer="https://example.com/t", actor="ci:t", payload=payload
    )
    return json.loads(event.to_json_bytes())


def test_401_and_403_are_counted_with_their_status(url: str, access: Any) -> None:
    project = f"p-{uuid.uuid4().hex[:8]}"
    reader = access.headers(f"service:reader-{project}", grants={project: ("reader",)})
    with httpx.Client(base_url=url, timeout=30) as http:
        before = requests_by_status(http)
        unauthenticated = http.post("/v1/events", json=an_event(project))
        forbidden = http.post("/v1/events", json=an_event(project), headers=reader)
        ol_unauthenticated = http.post("/api/v1/lineage", json={})
        http.get("/healthz")  # a probe: not an event route, not counted
        after = requests_by_status(http)
    assert error_of(unauthenticated) == (401, "unauthenticated")
    assert error_of(forbidden) == (403, "forbidden")
    assert error_of(ol_unauthenticated) == (401, "unauthenticated")
    delta = {status: after.get(status, 0.0) - before.get(status, 0.0) for status in after}
    assert {status: n for status, n in delta.items() if n} == {"401": 2.0, "403": 1.0}
