"""What ingest checks beyond the contract, over its HTTP layer with in-memory ports: the stamped
principal, one payload per event_id (in the batch and against applied events), the bound on
`occurred_at`, and client input that must never turn into a 500."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import Request
from fastapi.testclient import TestClient
from support.memory_stores import MemoryPayloadHashes, MemoryPrincipals, memory_graph_reads

from provgraph.authz import Principal, hash_token
from provgraph.client.eventlog import PRINCIPAL_HEADER, MemoryEventLog
from provgraph.ingest.app import create_app
from provgraph.ingest.http.errors import RequestError
from provgraph.ingest.http.events import read_body
from provgraph.ingest.http.integrity import batch_duplicates, future_events
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import ErrorCode, RunStarted, parse_event
from provgraph.schemas.events.experiment import RunStartedPayload

pytestmark = pytest.mark.unit

TOKEN = "pgt_unit-integrity"
CALLER = "service:trainer"
PRINCIPALS = MemoryPrincipals({hash_token(TOKEN): Principal(CALLER, roles={"p": {"writer"}})})


class Ingest:
    """An ingest app on in-memory ports."""

    def __init__(self, client: TestClient, log: MemoryEventLog, applied: MemoryPayloadHashes):
        self.client, self.log, self.applied = client, log, applied

    def post(self, body: Any) -> tuple[int, dict[str, Any]]:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        answer = self.client.post("/v1/events", content=content)
        assert answer.headers["content-type"] == "application/json"
        return answer.status_code, answer.json()


class DownHashes:
    """A graph that cannot be read."""

    def payload_hashes(self, event_ids: Collection[str]) -> dict[str, str]:
        raise ConnectionError("neo4j gone")


def _app(applied: Any, log: MemoryEventLog, skew_s: float = 300.0) -> TestClient:
    settings = IngestSettings(max_clock_skew_s=skew_s, retry_after_s=2)
    app = create_app(
        settings,
        event_log=log,
        principals=PRINCIPALS,
        **memory_graph_reads(),
        payload_hashes=applied,
    )
    return TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})


@pytest.fixture()
def ingest() -> Iterator[Ingest]:
    log, applied = MemoryEventLog(partitions=2), MemoryPayloadHashes()
    with _app(applied, log) as client:
        yield Ingest(client, log, applied)


def event(run: str = "r-1", **fields: Any) -> dict[str, Any]:
    built = RunStarted.create(
        project="p",
        producer="https://example.com/t",
        actor="ci:t",
        payload=RunStartedPayload(run_id=run, params={"lr": 0.1}),
    )
    data: dict[str, Any] = json.loads(built.to_json_bytes())
    return {**data, **fields}


def errors(body: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(e["index"], e["path"], e["code"]) for e in body["error"]["details"]["errors"]]


# ---- the stamped principal ------------------------------------------------------------------


def test_every_appended_event_carries_the_authenticated_principal(ingest: Ingest) -> None:
    status, body = ingest.post([event("r-1"), event("r-2"), event("r-3")])
    assert status == 202
    positions = [(e["partition"], e["offset"]) for e in body["events"]]
    expected = [(PRINCIPAL_HEADER, f"principal:{CALLER}".encode())]
    assert [ingest.log.headers[p] for p in positions] == [expected] * 3


def test_the_stamp_is_not_part_of_the_event(ingest: Ingest) -> None:
    sent = event()
    assert ingest.post(sent)[0] == 202
    (stored,) = ingest.log.events
    assert stored == parse_event(sent)  # the JSON (and so its hash) is the client's


# ---- one payload per event_id -----------------------------------------------------------------


def test_one_event_id_with_two_payloads_in_a_batch_is_422(ingest: Ingest) -> None:
    first = event("r-1")
    other = {**event("r-2"), "event_id": first["event_id"]}
    status, body = ingest.post([first, event("r-3"), other])
    assert status == 422
    assert errors(body) == [(2, "event_id", "duplicate_event_id")]
    assert first["event_id"] in body["error"]["details"]["errors"][0]["reason"]
    assert ingest.log.events == []


def test_the_same_event_twice_in_a_batch_is_accepted(ingest: Ingest) -> None:
    same = event()
    respelled = json.loads(json.dumps(same).replace("Z", "+00:00"))  # same canonical form
    status, body = ingest.post([same, respelled])
    assert status == 202 and body["accepted"] == 2


def test_an_event_id_applied_with_another_payload_is_409(ingest: Ingest) -> None:
    applied = event("r-1")
    ingest.applied.apply([parse_event(applied)])
    changed = {**applied, "actor": "someone:else"}
    status, body = ingest.post([event("r-2"), changed])
    assert status == 409
    error = body["error"]
    assert error["code"] == "event_id_conflict"
    assert error["details"]["index"] == 1
    assert error["details"]["event_id"] == applied["event_id"]
    assert applied["event_id"] in error["message"] and "event 1" in error["message"]
    assert ingest.log.events == []


def test_an_applied_event_sent_again_is_accepted(ingest: Ingest) -> None:
    applied = event("r-1")
    ingest.applied.apply([parse_event(applied)])
    assert ingest.post(applied)[0] == 202


def test_an_unreadable_graph_is_503_not_a_pass() -> None:
    log = MemoryEventLog()
    with _app(DownHashes(), log) as client:
        answer = client.post("/v1/events", json=event())
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "graph_unavailable"
    assert answer.headers["Retry-After"] == "2"
    assert "neo4j gone" not in answer.text and log.events == []


def test_batch_duplicates_names_every_later_copy() -> None:
    one = parse_event(event("r-1"))
    two = parse_event({**event("r-2"), "event_id": str(one.event_id)})
    found = batch_duplicates([one, two, one, two])
    assert [(e.index, e.code) for e in found] == [
        (1, ErrorCode.DUPLICATE_EVENT_ID),
        (3, ErrorCode.DUPLICATE_EVENT_ID),
    ]


# ---- occurred_at and the server's clock -------------------------------------------------------


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


def test_occurred_at_beyond_the_skew_is_422_naming_index_and_bound(ingest: Ingest) -> None:
    ahead = event("r-2", occurred_at=_at(timedelta(seconds=400)))
    status, body = ingest.post([event("r-1"), ahead])
    assert status == 422
    assert errors(body) == [(1, "occurred_at", "occurred_at_in_future")]
    assert "max_clock_skew_s=300 s" in body["error"]["details"]["errors"][0]["reason"]
    assert ingest.log.events == []


def test_occurred_at_within_the_skew_or_in_the_past_is_accepted(ingest: Ingest) -> None:
    soon = event("r-1", occurred_at=_at(timedelta(seconds=200)))
    old = event("r-2", occurred_at="1999-01-01T00:00:00Z")
    assert ingest.post([soon, old])[0] == 202


def test_the_bound_is_a_setting() -> None:
    with _app(MemoryPayloadHashes(), MemoryEventLog(), skew_s=5.0) as client:
        answer = client.post("/v1/events", json=event(occurred_at=_at(timedelta(seconds=60))))
    assert answer.status_code == 422
    assert "max_clock_skew_s=5 s" in answer.text


def test_future_events_compares_with_the_given_clock() -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    one = parse_event(event(occurred_at="2030-01-01T00:05:00Z"))
    two = parse_event(event(occurred_at="2030-01-01T00:05:01Z"))
    assert [e.index for e in future_events([one, two], 300, now)] == [1]


# ---- client input never answers 500 ----------------------------------------------------------


def _text_with(value_text: str) -> bytes:
    return json.dumps(event()).replace('"lr": 0.1', f'"lr": {value_text}').encode()


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"[" * 100_000 + b"]" * 100_000, 400, "malformed_json"),
        (b'{"a": ' * 50_000 + b"1" + b"}" * 50_000, 400, "malformed_json"),
        # Within what the parser reads, beyond what the contract takes: per-event 422s.
        (b"[" + b"[" * 700 + b"]" * 700 + b"]", 422, "validation_failed"),
        (_text_with("[" * 700 + "]" * 700), 422, "validation_failed"),
        (_text_with("9" * 5000), 400, "malformed_json"),
    ],
    ids=["deep-arrays", "deep-objects", "deep-item", "deep-params", "5000-digit-integer"],
)
def test_what_the_parser_cannot_read_is_a_json_4xx(
    ingest: Ingest, body: bytes, status: int, code: str
) -> None:
    answer_status, answer = ingest.post(body)
    assert (answer_status, answer["error"]["code"]) == (status, code)


def test_deep_json_says_why(ingest: Ingest) -> None:
    _, body = ingest.post(b"[" * 100_000 + b"]" * 100_000)
    assert "too deeply" in body["error"]["message"]
    _, body = ingest.post(_text_with("9" * 5000))
    assert body["error"]["message"] == "the body holds an integer of more than 4300 digits"


@pytest.mark.parametrize(
    ("value_text", "reason"),
    [
        ("1e999", "not finite"),
        ("-1e999", "not finite"),
        (str(10**400), "outside signed 64 bits"),
        (str(2**63), "outside signed 64 bits"),
        ("[" * 40 + "]" * 40, "deeper than MAX_JSON_DEPTH"),
    ],
    ids=["1e999", "-1e999", "10**400", "2**63", "depth-40"],
)
def test_numbers_and_depth_the_store_cannot_hold_are_422_naming_the_field(
    ingest: Ingest, value_text: str, reason: str
) -> None:
    status, body = ingest.post(_text_with(value_text))
    assert status == 422
    (row,) = body["error"]["details"]["errors"]
    assert row["path"].startswith("payload.params") and reason in row["reason"]


@pytest.mark.parametrize(
    "stamp",
    ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "1969-12-31T23:59:59Z"],
)
def test_out_of_range_timestamps_are_422_naming_the_field(ingest: Ingest, stamp: str) -> None:
    status, body = ingest.post(event(occurred_at=stamp))
    assert status == 422
    (row,) = body["error"]["details"]["errors"]
    assert row["path"] == "occurred_at" and "out of range" in row["reason"]


def test_an_id_with_a_trailing_newline_is_422(ingest: Ingest) -> None:
    sent = event()
    sent["payload"]["run_id"] += "\n"
    sent["subject"] += "\n"
    status, body = ingest.post(sent)
    assert status == 422
    assert {row["path"] for row in body["error"]["details"]["errors"]} >= {"payload.run_id"}


def _request(content_length: str, body: bytes = b"{}") -> Request:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/events",
        "headers": [(b"content-length", content_length.encode("latin-1"))],
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(scope, receive)


@pytest.mark.parametrize(
    ("declared", "code"),
    [
        ("\u00b2", "bad_request"),  # '²'.isdigit() is true, int('²') fails
        ("-1", "bad_request"),
        ("1e3", "bad_request"),
        ("9" * 5000, "body_too_large"),  # int() of it would raise
        ("4097", "body_too_large"),
    ],
)
def test_any_content_length_text_is_a_4xx(declared: str, code: str) -> None:
    with pytest.raises(RequestError) as raised:
        asyncio.run(read_body(_request(declared), 4096))
    assert raised.value.code == code and raised.value.status < 500


def test_leading_zeros_are_still_a_byte_count() -> None:
    assert asyncio.run(read_body(_request("0" * 5000 + "2"), 4096)) == b"{}"
