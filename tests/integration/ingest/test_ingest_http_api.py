"""The ingest service over real HTTP (uvicorn on a free port) against the real Kafka broker."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType
from prometheus_client.parser import text_string_to_metric_families
from support.http_service import served

from provgraph.ingest.app import create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import MAX_BATCH_EVENTS, DatasetRegistered, Event, RunStarted
from provgraph.schemas.events.data import DatasetRegisteredPayload
from provgraph.schemas.events.experiment import RunStartedPayload

MAX_BODY = 64 * 1024
PARTITIONS = 3


@dataclass(frozen=True)
class Service:
    url: str
    settings: IngestSettings


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, neo4j_endpoint: Any) -> Iterator[Service]:
    """One ingest service on its own fresh topics, served by uvicorn in a thread."""
    topic = f"t-ingest-http-{uuid.uuid4().hex[:8]}"
    settings = IngestSettings(
        kafka_bootstrap=kafka_bootstrap,
        events_topic=topic,
        dead_letter_topic=f"{topic}.dlq",
        topic_partitions=PARTITIONS,
        max_body_bytes=MAX_BODY,
        produce_timeout_s=10.0,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
    )
    try:
        with served(create_app(settings)) as url:
            yield Service(url, settings)
    finally:
        admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        admin.delete_topics([settings.events_topic, settings.dead_letter_topic])
        admin.close()


@pytest.fixture()
def http(service: Service, admin_headers: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=30, headers=admin_headers) as client:
        yield client


def run_started(run: str | None = None) -> RunStarted:
    payload = RunStartedPayload(run_id=run or f"r-{uuid.uuid4().hex[:8]}", params={"lr": 0.1})
    return RunStarted.create(
        project="ingest-test", producer="https://example.com/t/1", actor="ci:t", payload=payload
    )


def dataset_registered() -> DatasetRegistered:
    payload = DatasetRegisteredPayload(name=f"ds-{uuid.uuid4().hex[:6]}")
    return DatasetRegistered.create(
        project="ingest-test", producer="https://example.com/t/1", actor="ci:t", payload=payload
    )


def wire(event: Event) -> Any:
    return json.loads(event.to_json_bytes())


def end_offsets(service: Service) -> dict[int, int]:
    consumer = KafkaConsumer(bootstrap_servers=service.settings.kafka_bootstrap)
    try:
        tps = [TopicPartition(service.settings.events_topic, p) for p in range(PARTITIONS)]
        return {tp.partition: offset for tp, offset in consumer.end_offsets(tps).items()}
    finally:
        consumer.close()


def read_records(service: Service, positions: list[tuple[int, int]]) -> dict[tuple[int, int], Any]:
    """The records at the given (partition, offset) positions, read back from the topic."""
    consumer = KafkaConsumer(
        bootstrap_servers=service.settings.kafka_bootstrap, enable_auto_commit=False
    )
    try:
        tps = [TopicPartition(service.settings.events_topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        consumer.seek_to_beginning()
        found: dict[tuple[int, int], Any] = {}
        deadline = time.monotonic() + 20
        while not set(positions) <= set(found) and time.monotonic() < deadline:
            for tp_records in consumer.poll(timeout_ms=500).values():
                found.update({(r.partition, r.offset): r for r in tp_records})
        return {pos: found[pos] for pos in positions if pos in found}
    finally:
        consumer.close()


def metric(http: httpx.Client, name: str, labels: dict[str, str] | None = None) -> float:
    text = http.get("/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and (labels or {}).items() <= sample.labels.items():
                return float(sample.value)
    return 0.0


def test_startup_creates_both_topics_kept_forever(service: Service) -> None:
    s = service.settings
    topics = [s.events_topic, s.dead_letter_topic]
    admin = KafkaAdminClient(bootstrap_servers=s.kafka_bootstrap)
    try:
        described = {t["name"]: t for t in admin.describe_topics(topics)}
        resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in topics]
        configs = admin.describe_configs(resources)["topic"]
    finally:
        admin.close()
    for topic in topics:
        assert len(described[topic]["partitions"]) == PARTITIONS
        assert configs[topic]["retention.ms"]["value"] == "-1"
        assert configs[topic]["cleanup.policy"]["value"] == "delete"


def test_batch_is_acknowledged_and_really_in_the_log(service: Service, http: httpx.Client) -> None:
    events: list[Event] = [run_started("r-same"), dataset_registered(), run_started("r-same")]
    answer = http.post("/v1/events", json=[wire(e) for e in events])
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["topic"] == service.settings.events_topic
    assert body["accepted"] == 3
    assert [a["event_id"] for a in body["events"]] == [str(e.event_id) for e in events]
    positions = [(a["partition"], a["offset"]) for a in body["events"]]
    records = read_records(service, positions)
    for event, position in zip(events, positions, strict=True):
        record = records[position]
        assert record.key == event.subject.encode()
        assert record.value == event.to_json_bytes()
    # One subject, one partition, in order.
    assert positions[0][0] == positions[2][0] and positions[0][1] < positions[2][1]


def test_one_event_as_an_object(service: Service, http: httpx.Client) -> None:
    event = run_started()
    answer = http.post("/v1/events", content=event.to_json_bytes())
    assert answer.status_code == 202, answer.text
    (accepted,) = answer.json()["events"]
    record = read_records(service, [(accepted["partition"], accepted["offset"])])
    assert next(iter(record.values())).value == event.to_json_bytes()


def test_invalid_event_refuses_the_whole_batch(service: Service, http: httpx.Client) -> None:
    before = end_offsets(service)
    bad = wire(run_started())
    bad["payload"]["params"] = "not-a-map"
    del bad["actor"]
    answer = http.post("/v1/events", json=[wire(run_started()), bad, wire(dataset_registered())])
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "validation_failed"
    assert error["details"]["events"] == 3 and error["details"]["invalid_events"] == 1
    problems = {(e["index"], e["path"], e["code"]) for e in error["details"]["errors"]}
    assert (1, "actor", "missing_field") in problems
    assert any(i == 1 and p.startswith("payload.params") for i, p, _ in problems)
    assert end_offsets(service) == before  # nothing of the batch reached Kafka


def test_malformed_json_is_400(service: Service, http: httpx.Client) -> None:
    before = end_offsets(service)
    answer = http.post("/v1/events", content=b'[{"event_id": ', headers=_json())
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "malformed_json" and "line 1" in error["message"]
    assert end_offsets(service) == before


def test_body_over_the_limit_is_413_by_length_and_by_bytes(http: httpx.Client) -> None:
    big = b"[" + b" " * MAX_BODY + b"]"
    by_length = http.post("/v1/events", content=big, headers=_json())
    assert by_length.status_code == 413
    assert by_length.json()["error"]["details"]["max_body_bytes"] == MAX_BODY

    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked transfer encoding
        yield b"["
        for _ in range(MAX_BODY // 1024 + 1):
            yield b" " * 1024
        yield b"]"

    by_bytes = http.post("/v1/events", content=chunks(), headers=_json())
    assert by_bytes.status_code == 413
    assert by_bytes.json()["error"]["code"] == "body_too_large"


def test_more_than_the_maximum_count_is_413(http: httpx.Client) -> None:
    answer = http.post("/v1/events", json=[{}] * (MAX_BATCH_EVENTS + 1))
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "too_many_events"


def test_metrics_count_accepted_and_rejected(http: httpx.Client) -> None:
    accepted = metric(http, "provgraph_ingest_events_accepted_total")
    rejected = metric(
        http, "provgraph_ingest_events_rejected_total", {"reason": "validation_failed"}
    )
    produced = metric(http, "provgraph_ingest_produce_seconds_count")
    assert http.post("/v1/events", json=[wire(run_started()), wire(run_started())]).is_success
    assert http.post("/v1/events", json=[{"event_type": "nope"}]).status_code == 422
    assert metric(http, "provgraph_ingest_events_accepted_total") == accepted + 2
    assert metric(http, "provgraph_ingest_produce_seconds_count") == produced + 1
    after = metric(http, "provgraph_ingest_events_rejected_total", {"reason": "validation_failed"})
    assert after == rejected + 1
    assert metric(http, "provgraph_ingest_requests_total", {"status": "202"}) >= 1


def test_health_and_readiness(http: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    ready = http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["kafka"] == "reachable"


def _json() -> dict[str, str]:
    return {"Content-Type": "application/json"}
