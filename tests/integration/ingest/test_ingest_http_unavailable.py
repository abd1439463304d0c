"""Kafka down: the ingest service answers 503 with Retry-After in bounded time, then recovers.

Uses a private broker of this test alone, so the shared broker is never stopped.
"""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi.testclient import TestClient

from provgraph.ingest.app import create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload

PRODUCE_TIMEOUT_S = 2.0


def a_batch() -> list[Any]:
    event = RunStarted.create(
        project="ingest-test",
        producer="https://example.com/t/1",
        actor="ci:t",
        payload=RunStartedPayload(run_id="r-unavailable"),
    )
    return [json.loads(event.to_json_bytes())]


def test_kafka_down_gives_503_with_retry_after_then_recovers(
    private_kafka: Any, neo4j_endpoint: Any, admin_headers: dict[str, str]
) -> None:
    settings = IngestSettings(
        kafka_bootstrap=private_kafka.bootstrap,
        events_topic="ingest-unavailable",
        dead_letter_topic="ingest-unavailable.dlq",
        topic_partitions=2,
        produce_timeout_s=PRODUCE_TIMEOUT_S,
        retry_after_s=7,
        ready_cache_s=0.2,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
    )
    with TestClient(create_app(settings), headers=admin_headers) as http:
        assert http.post("/v1/events", json=a_batch()).status_code == 202
        assert http.get("/readyz").status_code == 200

        private_kafka.kill()
        started = time.monotonic()
        answer = http.post("/v1/events", json=a_batch())
        elapsed = time.monotonic() - started
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "7"
        assert answer.json()["error"]["code"] == "event_log_unavailable"
        assert elapsed < PRODUCE_TIMEOUT_S + 3
        time.sleep(0.3)  # past the readiness cache
        not_ready = http.get("/readyz")
        assert not_ready.status_code == 503 and not_ready.headers["Retry-After"] == "7"
        metrics = http.get("/metrics").text
        assert (
            'provgraph_ingest_events_rejected_total{reason="event_log_unavailable"} 1.0' in metrics
        )

        private_kafka.start()
        assert _eventually_accepted(http), "no 202 within 60 s after Kafka came back"
        assert http.get("/readyz").status_code == 200


def _eventually_accepted(http: TestClient) -> bool:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = http.post("/v1/events", json=a_batch())
        if answer.status_code == 202:
            return True
        assert answer.status_code == 503, answer.text
        time.sleep(0.5)
    return False
