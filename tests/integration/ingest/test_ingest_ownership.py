"""Ownership at ingest, against the real Kafka broker and Neo4j: an event may write only what
its project owns (403 naming the entity, its owner and the event's index), may reference only
what its caller can read, and OpenLineage outputs need writer on their project."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from provgraph.ingest.app import create_app
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import (
    CheckpointDeleted,
    CheckpointEvaluated,
    CheckpointSaved,
    DatasetVersionCreated,
    EntityDeleted,
    Event,
    RunCompleted,
    RunMetricsLogged,
    RunStarted,
    checkpoint_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import (
    CheckpointDeletedPayload,
    CheckpointEvaluatedPayload,
    CheckpointSavedPayload,
)
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.governance import EntityDeletedPayload
from provgraph.schemas.events.run import MetricPoint, RunCompletedPayload, RunMetricsLoggedPayload

PRODUCER = "https://example.com/t/1"


@dataclass(frozen=True)
class World:
    """Projects a (the caller's) and b (the victim's), b's run, and callers' headers."""

    a: str
    b: str
    key: str
    headers: dict[str, dict[str, str]]

    @property
    def run(self) -> str:
        return run_id(self.key)


def ev(cls: type[Event], project: str, payload: Any) -> Event:
    return cls.create(project=project, producer=PRODUCER, actor="ci:t", payload=payload)


def wire(*events: Event) -> list[Any]:
    return [json.loads(e.to_json_bytes()) for e in events]


@pytest.fixture()
def world(project: str, neo4j_driver: Driver, access: Any) -> Iterator[World]:
    a, b = f"{project[:60]}-a", f"{project[:60]}-b"
    key = f"victim-{uuid.uuid4().hex[:8]}"
    victim = [
        ev(RunStarted, b, RunStartedPayload(run_id=key, params={"lr": 0.001})),
        ev(CheckpointSaved, b, CheckpointSavedPayload(run_id=key, step=100, uri="s3://b/100/")),
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in victim])
    tag = uuid.uuid4().hex[:8]
    headers = {
        "writer-a": access.headers(f"service:wa-{tag}", grants={a: ("writer",)}),
        "deleter-a": access.headers(f"service:da-{tag}", grants={a: ("writer", "delete")}),
        "writer-a-reader-b": access.headers(
            f"service:wr-{tag}", grants={a: ("writer",), b: ("reader",)}
        ),
        "writer-ab": access.headers(f"service:wab-{tag}", grants={a: ("writer",), b: ("writer",)}),
    }
    yield World(a, b, key, headers)
    neo4j_driver.execute_query("MATCH (n) WHERE n.project IN [$a, $b] DETACH DELETE n", a=a, b=b)


@pytest.fixture()
def http(settings: IngestSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"auth_cache_s": 0.0}))) as client:
        yield client


def post(http: TestClient, world: World, who: str, body: Any, path: str = "/v1/events") -> Any:
    return http.post(path, json=body, headers=world.headers[who])


def takeovers(w: World) -> dict[str, Event]:
    a, key = w.a, w.key
    point = MetricPoint(name="loss", step=1, value=0.0)
    return {
        "run.started": ev(RunStarted, a, RunStartedPayload(run_id=key, params={"lr": 9})),
        "run.completed": ev(RunCompleted, a, RunCompletedPayload(run_id=key, conclusion="x")),
        "run.metrics.logged": ev(
            RunMetricsLogged, a, RunMetricsLoggedPayload(run_id=key, points=(point,))
        ),
        "checkpoint.saved": ev(
            CheckpointSaved, a, CheckpointSavedPayload(run_id=key, step=100, uri="s3://evil/")
        ),
        "checkpoint.saved.new-step": ev(
            CheckpointSaved, a, CheckpointSavedPayload(run_id=key, step=7, uri="s3://evil/")
        ),
        "checkpoint.deleted": ev(
            CheckpointDeleted, a, CheckpointDeletedPayload(checkpoint=checkpoint_id(key, 100))
        ),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "run.started",
        "run.completed",
        "run.metrics.logged",
        "checkpoint.saved",
        "checkpoint.saved.new-step",
        "checkpoint.deleted",
    ],
)
def test_a_writer_may_not_change_another_projects_run_or_checkpoint(
    http: TestClient, world: World, kind: str
) -> None:
    legit = ev(RunStarted, world.a, RunStartedPayload(run_id=f"own-{uuid.uuid4().hex[:8]}"))
    answer = post(http, world, "writer-ab", wire(legit, takeovers(world)[kind]))
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["code"] == "forbidden"
    assert error["details"]["index"] == 1
    assert error["details"]["owner"] == world.b
    assert error["details"]["project"] == world.a
    assert world.b in error["message"] and error["details"]["entity"] in error["message"]


def test_deleting_needs_the_entity_to_be_the_events_projects(
    http: TestClient, world: World
) -> None:
    for entity in (world.run, checkpoint_id(world.key, 100)):
        deletion = ev(EntityDeleted, world.a, EntityDeletedPayload(entity=entity, reason="x"))
        answer = post(http, world, "deleter-a", wire(deletion))
        assert answer.status_code == 403, answer.text
        assert answer.json()["error"]["details"]["entity"] == entity
    own = f"own-{uuid.uuid4().hex[:8]}"
    mine = [
        ev(RunStarted, world.a, RunStartedPayload(run_id=own)),
        ev(EntityDeleted, world.a, EntityDeletedPayload(entity=run_id(own), reason="mine")),
    ]
    assert post(http, world, "deleter-a", wire(*mine)).status_code == 202


def test_claims_within_one_batch_count(http: TestClient, world: World) -> None:
    own = f"new-{uuid.uuid4().hex[:8]}"
    started = ev(RunStarted, world.a, RunStartedPayload(run_id=own))
    saved = ev(CheckpointSaved, world.a, CheckpointSavedPayload(run_id=own, step=1, uri="s3://a/"))
    assert post(http, world, "writer-a", wire(saved, started)).status_code == 202
    other = f"new-{uuid.uuid4().hex[:8]}"
    first = ev(RunStarted, world.a, RunStartedPayload(run_id=other))
    second = ev(RunCompleted, world.b, RunCompletedPayload(run_id=other, conclusion="mine"))
    answer = post(http, world, "writer-ab", wire(first, second))
    assert answer.status_code == 403, answer.text
    assert answer.json()["error"]["details"] == {
        "index": 1,
        "entity": run_id(other),
        "owner": world.a,
        "project": world.b,
    }


def test_referencing_needs_the_reader_right_on_the_referenced_project(
    http: TestClient, world: World
) -> None:
    payload = DatasetVersionCreatedPayload(
        name="d", version="v1", storage_uri="s3://a/d", produced_by_run=world.run
    )
    uses = ev(DatasetVersionCreated, world.a, payload)
    refused = post(http, world, "writer-a", wire(uses))
    assert refused.status_code == 403, refused.text
    details = refused.json()["error"]["details"]
    assert (details["entity"], details["owner"], details["right"]) == (world.run, world.b, "reader")
    assert post(http, world, "writer-a-reader-b", wire(uses)).status_code == 202
    # a run nobody owns yet may be referenced by anyone: the reference claims nothing
    free = DatasetVersionCreatedPayload(
        name="d", version="v2", storage_uri="s3://a/d", produced_by_run=run_id("nobody-yet")
    )
    assert (
        post(http, world, "writer-a", wire(ev(DatasetVersionCreated, world.a, free))).status_code
        == 202
    )


def test_evaluating_another_projects_checkpoint_needs_the_reader_right_on_it(
    http: TestClient, world: World
) -> None:
    checkpoint = checkpoint_id(world.key, 100)
    payload = CheckpointEvaluatedPayload(
        evaluation_id=uuid.uuid4(), checkpoint=checkpoint, suite="mmlu", passed=True
    )
    evaluated = ev(CheckpointEvaluated, world.a, payload)
    refused = post(http, world, "writer-a", wire(evaluated))
    assert refused.status_code == 403, refused.text
    details = refused.json()["error"]["details"]
    assert (details["entity"], details["owner"], details["right"]) == (
        checkpoint,
        world.b,
        "reader",
    )
    assert post(http, world, "writer-a-reader-b", wire(evaluated)).status_code == 202


def _openlineage(world: World, inputs: list[str], outputs: list[str]) -> dict[str, Any]:
    def dataset(namespace: str) -> dict[str, Any]:
        return {"namespace": namespace, "name": "corpus"}

    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": world.a, "name": "etl"},
        "inputs": [dataset(ns) for ns in inputs],
        "outputs": [dataset(ns) for ns in outputs],
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


@pytest.mark.parametrize(
    ("who", "inputs", "outputs", "status"),
    [
        ("writer-a", [], ["b"], 403),
        ("writer-a-reader-b", [], ["b"], 403),
        ("writer-ab", [], ["a", "b"], 201),
        ("writer-a", ["b"], [], 403),
        ("writer-a-reader-b", ["b"], ["a"], 201),
        ("writer-a", ["a"], ["a"], 201),
    ],
)
def test_openlineage_needs_writer_on_outputs_and_reader_on_inputs(
    http: TestClient, world: World, who: str, inputs: list[str], outputs: list[str], status: int
) -> None:
    names = {"a": world.a, "b": world.b}
    body = _openlineage(world, [names[n] for n in inputs], [names[n] for n in outputs])
    answer = post(http, world, who, body, path="/api/v1/lineage")
    assert answer.status_code == status, answer.text
    if status == 403:
        assert world.b in answer.json()["error"]["message"]
