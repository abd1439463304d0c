"""The HTTP layer of the ingest service with an in-memory event log (no Kafka, no sockets)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.memory_stores import MemoryPayloadHashes, MemoryPrincipals, memory_graph_reads

from provgraph.authz import Principal, hash_token
from provgraph.client.errors import TransportError
from provgraph.client.eventlog import Appended, Headers, MemoryEventLog
from provgraph.ingest.app import create_app
from provgraph.ingest.http.errors import (
    InvalidBodyError,
    MalformedJsonError,
    TooManyEventsError,
)
from provgraph.ingest.http.events import parse_items
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import MAX_BATCH_EVENTS, Event, RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload


class FailingEventLog(MemoryEventLog):
    """The in-memory event log, switched to failing like an unreachable broker by `down`."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def append(
        self, events: Sequence[Event], headers: Sequence[Headers] | None = None
    ) -> list[Appended]:
        if self.down:
            raise TransportError("broker gone")
        return super().append(events, headers)

    def check_reachable(self) -> None:
        if self.down:
            raise TransportError("broker gone")


@pytest.fixture()
def log() -> FailingEventLog:
    return FailingEventLog()


TOKEN = "pgt_unit-writer"
WRITER = MemoryPrincipals({hash_token(TOKEN): Principal("service:ci", roles={"p": {"writer"}})})
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def http(log: FailingEventLog) -> Iterator[TestClient]:
    settings = IngestSettings(max_body_bytes=4096, ready_cache_s=0.0, retry_after_s=3)
    with TestClient(
        create_app(
            settings,
            event_log=log,
            principals=WRITER,
            **memory_graph_reads(),
            payload_hashes=MemoryPayloadHashes(),
        ),
        headers=AUTH,
    ) as client:
        yield client


def event(run: str = "r-1") -> Any:
    built = RunStarted.create(
        project="p",
        producer="https://example.com/t",
        actor="ci:t",
        payload=RunStartedPayload(run_id=run),
    )
    return json.loads(built.to_json_bytes())


def test_a_batch_is_answered_in_request_order(http: TestClient, log: FailingEventLog) -> None:
    batch = [event("r-1"), event("r-2")]
    answer = http.post("/v1/events", json=batch)
    assert answer.status_code == 202
    body = answer.json()
    assert body["accepted"] == 2
    assert [e["event_id"] for e in body["events"]] == [b["event_id"] for b in batch]
    assert [e["offset"] for e in body["events"]] == [0, 1]
    assert [str(e.event_id) for e in log.events] == [b["event_id"] for b in batch]


def test_one_invalid_event_refuses_all(http: TestClient, log: FailingEventLog) -> None:
    broken = event()
    broken["payload"]["run_id"] = 5
    answer = http.post("/v1/events", json=[event(), broken, "text", 3])
    assert answer.status_code == 422
    details = answer.json()["error"]["details"]
    assert details["invalid_events"] == 3
    codes = {(e["index"], e["code"]) for e in details["errors"]}
    assert (1, "wrong_type") in codes
    assert (2, "malformed") in codes and (3, "malformed") in codes
    assert log.events == []


def test_error_envelope_for_bad_json_and_oversized_body(http: TestClient) -> None:
    bad = http.post("/v1/events", content=b"{nope")
    assert bad.status_code == 400
    assert set(bad.json()["error"]) == {"code", "message", "details"}
    big = http.post("/v1/events", content=b"[" + b" " * 5000 + b"]")
    assert big.status_code == 413
    assert big.json()["error"]["code"] == "body_too_large"


def test_unavailable_log_is_503_with_retry_after(http: TestClient, log: FailingEventLog) -> None:
    log.down = True
    answer = http.post("/v1/events", json=event())
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "3"
    assert answer.json()["error"]["code"] == "event_log_unavailable"
    ready = http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["error"]["code"] == "not_ready"


def test_probes_and_unknown_routes(http: TestClient) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    assert http.get("/readyz").status_code == 200
    assert "provgraph_ingest_events_accepted_total" in http.get("/metrics").text
    missing = http.get("/v2/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert http.get("/v1/events").status_code == 405


def test_each_app_has_its_own_metrics(log: FailingEventLog) -> None:
    app = create_app(
        IngestSettings(),
        event_log=log,
        principals=WRITER,
        **memory_graph_reads(),
        payload_hashes=MemoryPayloadHashes(),
    )
    with TestClient(app, headers=AUTH) as one:
        assert one.post("/v1/events", json=event()).status_code == 202
        with TestClient(
            create_app(
                IngestSettings(),
                event_log=log,
                principals=WRITER,
                **memory_graph_reads(),
                payload_hashes=MemoryPayloadHashes(),
            )
        ) as two:
            assert "provgraph_ingest_events_accepted_total 0.0" in two.get("/metrics").text
        assert "provgraph_ingest_events_accepted_total 1.0" in one.get("/metrics").text


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"", MalformedJsonError),
        (b"   ", MalformedJsonError),
        (b'{"a": NaN}', MalformedJsonError),
        (b"\xff\xfe{", MalformedJsonError),
        (b'{"a": 1', MalformedJsonError),
        (b"[]", InvalidBodyError),
        (b'"event"', InvalidBodyError),
        (b"null", InvalidBodyError),
        (json.dumps([{}] * (MAX_BATCH_EVENTS + 1)).encode(), TooManyEventsError),
    ],
)
def test_parse_items_refuses(body: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_items(body)


def test_parse_items_object_is_one_event_and_array_is_a_batch() -> None:
    assert parse_items(b'{"a": 1}') == [{"a": 1}]
    assert parse_items(b'[{"a": 1}, {"b": 2}]') == [{"a": 1}, {"b": 2}]
    assert len(parse_items(json.dumps([{}] * MAX_BATCH_EVENTS).encode())) == MAX_BATCH_EVENTS


def test_no_token_is_401_and_a_missing_right_is_403_with_nothing_appended(
    log: FailingEventLog,
) -> None:
    app = create_app(
        IngestSettings(),
        event_log=log,
        principals=WRITER,
        **memory_graph_reads(),
        payload_hashes=MemoryPayloadHashes(),
    )
    with TestClient(app) as anonymous:
        answer = anonymous.post("/v1/events", json=event())
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "unauthenticated"
        other = {**event(), "project": "q"}
        refused = anonymous.post("/v1/events", json=[event(), other], headers=AUTH)
    assert refused.status_code == 403
    assert refused.json()["error"]["details"]["project"] == "q"
    assert log.events == []
