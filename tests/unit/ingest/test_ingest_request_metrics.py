"""`provgraph_ingest_requests_total` counts every answer of the event routes by status, those
of the token check (401, 403) too, and nothing else (in-memory event log, no sockets)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from support.memory_stores import MemoryPayloadHashes, MemoryPrincipals, memory_graph_reads

from provgraph.authz import Principal, hash_token
from provgraph.client.eventlog import MemoryEventLog
from provgraph.ingest.http.app import EVENT_ROUTES, create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload

WRITER, READER = "pgt_unit-writer", "pgt_unit-reader"
PRINCIPALS = MemoryPrincipals(
    {
        hash_token(WRITER): Principal("service:w", roles={"p": {"writer"}}),
        hash_token(READER): Principal("service:r", roles={"p": {"reader"}}),
    }
)


@pytest.fixture()
def http() -> Iterator[TestClient]:
    app = create_app(
        IngestSettings(),
        event_log=MemoryEventLog(),
        principals=PRINCIPALS,
        **memory_graph_reads(),
        payload_hashes=MemoryPayloadHashes(),
    )
    with TestClient(app) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def event() -> Any:
    payload = RunStartedPayload(run_id="r-1")
    built = RunStarted.create(
        project="p", producer="https://example.com/t", actor="ci:t", payload=payload
    )
    return json.loads(built.to_json_bytes())


def requests_by_status(http: TestClient) -> dict[str, float]:
    return {
        sample.labels["status"]: sample.value
        for family in text_string_to_metric_families(http.get("/metrics").text)
        for sample in family.samples
        if sample.name == "provgraph_ingest_requests_total"
    }


def test_every_answer_of_the_event_routes_is_counted(http: TestClient) -> None:
    assert http.post("/v1/events", json=event(), headers=bearer(WRITER)).status_code == 202
    assert http.post("/v1/events", json=event()).status_code == 401
    assert http.post("/v1/events", json=event(), headers=bearer("pgt_nobody")).status_code == 401
    assert http.post("/v1/events", json=event(), headers=bearer(READER)).status_code == 403
    assert http.post("/v1/events", content=b"[", headers=bearer(WRITER)).status_code == 400
    assert http.post("/api/v1/lineage/batch", json=[]).status_code == 401
    assert requests_by_status(http) == {"202": 1.0, "401": 3.0, "403": 1.0, "400": 1.0}


def test_probes_and_unknown_paths_are_not_event_requests(http: TestClient) -> None:
    http.get("/healthz")
    http.get("/v1/nowhere")
    assert requests_by_status(http) == {}


def test_the_event_routes_are_those_that_take_events() -> None:
    assert {"/v1/events", "/api/v1/lineage", "/api/v1/lineage/batch"} == EVENT_ROUTES
