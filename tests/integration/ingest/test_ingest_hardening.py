"""The ingest service against hostile and broken input, over real HTTP (uvicorn on a free
port, the services' own HTTP protocol) with the real Kafka broker and Neo4j: no client input
answers 500, every event is stamped with the authenticated principal, an event_id names one
payload, and occurred_at is bounded by the server's clock."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from neo4j import Driver
from support.http_service import raw_exchange, served

from provgraph.ingest.app import create_app
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import RunStarted, parse_event
from provgraph.schemas.events.experiment import RunStartedPayload

PARTITIONS = 2


@dataclass(frozen=True)
class Service:
    url: str
    settings: IngestSettings
    project: str
    principal: str
    headers: dict[str, str]


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, neo4j_endpoint: Any, access: Any) -> Iterator[Service]:
    """One ingest service on its own fresh topics, and a writer of a fresh project."""
    suffix = uuid.uuid4().hex[:8]
    topic = f"t-ingest-hardening-{suffix}"
    settings = IngestSettings(
        kafka_bootstrap=kafka_bootstrap,
        events_topic=topic,
        dead_letter_topic=f"{topic}.dlq",
        topic_partitions=PARTITIONS,
        max_body_bytes=4 * 1024 * 1024,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        auth_cache_s=0.0,
    )
    project, principal = f"harden-{suffix}", f"service:harden-{suffix}"
    headers = access.headers(principal, grants={project: ("writer",)})
    try:
        with served(create_app(settings)) as url:
            yield Service(url, settings, project, principal, headers)
    finally:
        admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        admin.delete_topics([settings.events_topic, settings.dead_letter_topic])
        admin.close()


@pytest.fixture()
def http(service: Service) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=60, headers=service.headers) as client:
        yield client


def event(service: Service, **fields: Any) -> dict[str, Any]:
    payload = RunStartedPayload(run_id=f"r-{uuid.uuid4().hex[:12]}", params={"lr": 0.1})
    built = RunStarted.create(
        project=service.project, producer="https://example.com/t", actor="ci:t", payload=payload
    )
    data: dict[str, Any] = json.loads(built.to_json_bytes())
    return {**data, **fields}


def post(http: httpx.Client, body: Any) -> tuple[int, dict[str, Any]]:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    answer = http.post("/v1/events", content=content, headers={"content-type": "application/json"})
    assert answer.headers["content-type"] == "application/json", answer.text[:200]
    return answer.status_code, answer.json()


def rows(body: dict[str, Any]) -> list[dict[str, Any]]:
    return list(body["error"]["details"]["errors"])


def with_param(service: Service, value_text: str) -> bytes:
    return json.dumps(event(service)).replace('"lr": 0.1', f'"lr": {value_text}').encode()


# ---- no client input answers 500 ------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"[" * 200_000 + b"]" * 200_000, 400, "malformed_json"),
        (b'{"k": ' * 100_000 + b"0" + b"}" * 100_000, 400, "malformed_json"),
        (b"[" + b"[" * 700 + b"]" * 700 + b"]", 422, "validation_failed"),
    ],
    ids=["arrays-beyond-the-parser", "objects-beyond-the-parser", "deep-item"],
)
def test_deep_json_is_a_json_4xx(http: httpx.Client, body: bytes, status: int, code: str) -> None:
    answer_status, answer = post(http, body)
    assert (answer_status, answer["error"]["code"]) == (status, code)


def test_json_beyond_the_parser_says_why(http: httpx.Client) -> None:
    _, answer = post(http, b"[" * 200_000 + b"]" * 200_000)
    assert "too deeply" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("value_text", "reason"),
    [
        ("1e999", "not finite"),
        ("-1e400", "not finite"),
        (str(10**400), "outside signed 64 bits"),
        (str(-(2**63) - 1), "outside signed 64 bits"),
        ("[" * 40 + "]" * 40, "deeper than MAX_JSON_DEPTH"),
        ("[" * 700 + "]" * 700, ""),
        (json.dumps({f"k{i}": i for i in range(1001)}), "more than MAX_JSON_KEYS"),
        (json.dumps({"a\u0000b": 1}), "control characters"),
    ],
    ids=["1e999", "-1e400", "10**400", "int64-min-1", "depth-40", "depth-700", "keys", "nul"],
)
def test_values_the_store_cannot_hold_are_422(
    service: Service, http: httpx.Client, value_text: str, reason: str
) -> None:
    status, answer = post(http, with_param(service, value_text))
    assert status == 422, answer
    (row,) = rows(answer)
    assert reason in row["reason"]


def test_an_integer_of_thousands_of_digits_is_400(service: Service, http: httpx.Client) -> None:
    status, answer = post(http, with_param(service, "7" * 10_000))
    assert (status, answer["error"]["code"]) == (400, "malformed_json")
    assert "more than 4300 digits" in answer["error"]["message"]


@pytest.mark.parametrize(
    "stamp",
    [
        "9999-12-31T23:59:59-01:00",
        "0001-01-01T00:00:00+01:00",
        "1969-12-31T23:59:59Z",
        "1970-01-01T00:30:00+01:00",
    ],
)
def test_out_of_range_timestamps_are_422_naming_the_field(
    service: Service, http: httpx.Client, stamp: str
) -> None:
    status, answer = post(http, [event(service), event(service, occurred_at=stamp)])
    assert status == 422
    (row,) = rows(answer)
    assert (row["index"], row["path"]) == (1, "occurred_at")
    assert stamp in row["reason"] and "out of range" in row["reason"]


def test_an_id_with_a_trailing_newline_is_422(service: Service, http: httpx.Client) -> None:
    sent = event(service)
    sent["payload"]["run_id"] += "\n"
    sent["subject"] += "\n"
    status, answer = post(http, sent)
    assert status == 422
    assert "payload.run_id" in {row["path"] for row in rows(answer)}


@pytest.mark.parametrize("length", ["\u00b2", "9" * 5000, "-5"])
def test_a_content_length_of_any_text_is_a_json_4xx(service: Service, length: str) -> None:
    request = (
        f"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n"
        f"Authorization: {service.headers['Authorization']}\r\nConnection: close\r\n\r\n{{}}"
    ).encode("latin-1")
    status, headers, body = raw_exchange(service.url, request)
    assert status.split()[1][0] == "4", status
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"]


# ---- occurred_at and the server's clock -------------------------------------------------------


def test_occurred_at_too_far_ahead_is_422_naming_index_and_bound(
    service: Service, http: httpx.Client
) -> None:
    ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    status, answer = post(http, [event(service), event(service), event(service, occurred_at=ahead)])
    assert status == 422
    (row,) = rows(answer)
    assert (row["index"], row["path"], row["code"]) == (2, "occurred_at", "occurred_at_in_future")
    assert "max_clock_skew_s=300 s" in row["reason"]
    soon = (datetime.now(UTC) + timedelta(seconds=60)).isoformat()
    assert post(http, event(service, occurred_at=soon))[0] == 202


# ---- the stamped principal ------------------------------------------------------------------


def read_back(settings: IngestSettings, positions: list[tuple[int, int]]) -> dict[Any, Any]:
    consumer = KafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False)
    try:
        consumer.assign([TopicPartition(settings.events_topic, p) for p in range(PARTITIONS)])
        consumer.seek_to_beginning()
        found: dict[tuple[int, int], Any] = {}
        deadline = time.monotonic() + 20
        while not set(positions) <= set(found) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                found.update({(r.partition, r.offset): r for r in records})
        return found
    finally:
        consumer.close()


def test_every_event_is_stamped_with_the_authenticated_principal(
    service: Service, http: httpx.Client
) -> None:
    sent = [event(service) for _ in range(4)]
    status, answer = post(http, sent)
    assert status == 202, answer
    positions = [(a["partition"], a["offset"]) for a in answer["events"]]
    records = read_back(service.settings, positions)
    stamp = ("provgraph-principal", f"principal:{service.principal}".encode())
    for one, position in zip(sent, positions, strict=True):
        record = records[position]
        assert record.headers == [stamp]
        assert record.value == parse_event(one).to_json_bytes()  # the JSON is the client's


# ---- one payload per event_id -----------------------------------------------------------------


def test_one_event_id_with_two_payloads_in_a_batch_is_422(
    service: Service, http: httpx.Client
) -> None:
    first = event(service)
    status, answer = post(http, [first, {**event(service), "event_id": first["event_id"]}])
    assert status == 422
    (row,) = rows(answer)
    assert (row["index"], row["path"], row["code"]) == (1, "event_id", "duplicate_event_id")


def test_an_event_id_applied_with_another_payload_is_409(
    service: Service, http: httpx.Client, neo4j_driver: Driver
) -> None:
    applied = event(service)
    GraphWriter(neo4j_driver).write([project_event(parse_event(applied))])  # as the projector
    again = post(http, applied)
    assert again[0] == 202, again  # the same event again: a retry
    changed = {**applied, "actor": "someone:else"}
    status, answer = post(http, [event(service), changed])
    assert status == 409, answer
    error = answer["error"]
    assert error["code"] == "event_id_conflict"
    assert (error["details"]["index"], error["details"]["event_id"]) == (1, applied["event_id"])
    assert applied["event_id"] in error["message"]
