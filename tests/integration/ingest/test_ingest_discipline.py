"""The records discipline at ingest, against the real Kafka broker and Neo4j, with the real
projector between the requests: a recorded environment changed under its key is 409 naming the
key and the fields, the same snapshot again is accepted, and once the project's admin set the
policy, a run.completed without a conclusion is 422 naming the run (with one: 202). Once it
requires elements of runs, dataset versions and model versions, and passed gates before
training, a record that leaves one out is 422 ``record_incomplete`` naming the record, the
project and everything missing, and nothing of its batch is written; what an earlier event of
the same request records counts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from support.record_policy import (
    RUN_ELEMENTS,
    approved,
    evaluated,
    model_version,
    policy,
    started,
    version,
)

from provgraph.ingest.app import create_app
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import read_log_in_order
from provgraph.schemas import (
    MAX_BATCH_EVENTS,
    EnvironmentSnapshotRecorded,
    Event,
    ProjectPolicySet,
    RunCompleted,
    RunStarted,
    environment_id,
    run_id,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.run import RunCompletedPayload
from provgraph.schemas.records import RecordKind

KEY = "trainer-cu121-2024-05"
PACKAGES = {"numpy": "1.26.4", "torch": "2.3.0"}
RUN, DATA, MODEL = RecordKind.RUN, RecordKind.DATASET_VERSION, RecordKind.MODEL_VERSION


def ev(cls: type[Event], project: str, payload: Any) -> dict[str, Any]:
    event = cls.create(project=project, producer="https://e.com/t/1", actor="ci:t", payload=payload)
    data: dict[str, Any] = json.loads(event.to_json_bytes())
    return data


def snapshot(project: str, key: str = KEY, **changes: Any) -> dict[str, Any]:
    fields = {"key": key, "python_version": "3.11.8", "packages": PACKAGES, **changes}
    return ev(EnvironmentSnapshotRecorded, project, EnvironmentSnapshotRecordedPayload(**fields))


@pytest.fixture()
def http(settings: IngestSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"auth_cache_s": 0.0}))) as client:
        yield client


def project_log(settings: IngestSettings, driver: Driver) -> None:
    """Fold everything appended so far into Neo4j with the real projector."""
    with build_projector(settings, driver) as projector:
        projector.run_until_idle(timeout_s=60)


def test_a_recorded_environment_is_read_only_at_ingest(
    settings: IngestSettings, neo4j_driver: Driver, project: str, access: Any, http: TestClient
) -> None:
    headers = access.headers(f"service:env-{project[-8:]}", grants={project: ("writer",)})
    first = snapshot(project)
    assert http.post("/v1/events", json=first, headers=headers).status_code == 202
    project_log(settings, neo4j_driver)

    changed = snapshot(project, packages={**PACKAGES, "numpy": "2.0.0"}, driver_version="550")
    answer = http.post("/v1/events", json=changed, headers=headers)
    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "environment_changed"
    env = environment_id(project, KEY)
    assert error["details"] == {
        "index": 0,
        "environment": env,
        "key": KEY,
        "differing": ["driver_version", "packages"],
    }

    # The same event again (a retry) and the same contents under a new event_id: accepted.
    for same in (first, snapshot(project)):
        assert http.post("/v1/events", json=same, headers=headers).status_code == 202
    # The changed environment as a new key based on the old one: accepted.
    successor = snapshot(
        project, "trainer-cu121-2024-06", packages={**PACKAGES, "numpy": "2.0.0"}, based_on=env
    )
    assert http.post("/v1/events", json=successor, headers=headers).status_code == 202
    project_log(settings, neo4j_driver)
    graph = read_graph(neo4j_driver, project)
    assert graph.nodes[env]["props"]["package.numpy"] == "1.26.4"
    new = environment_id(project, "trainer-cu121-2024-06")
    assert any(
        line.startswith(f"{new} -[BASED_ON ") and line.endswith(f"]-> {env}")
        for line in graph.edges
    )


def test_a_project_admin_makes_conclusions_required_at_ingest(
    settings: IngestSettings, neo4j_driver: Driver, project: str, access: Any, http: TestClient
) -> None:
    tag = project[-8:]
    writer = access.headers(f"service:w-{tag}", grants={project: ("writer",)})
    admin = access.headers(f"service:a-{tag}", grants={project: ("admin",)})
    start = [ev(RunStarted, project, RunStartedPayload(run_id=f"r{i}-{tag}")) for i in range(3)]
    assert http.post("/v1/events", json=start, headers=writer).status_code == 202
    before = ev(RunCompleted, project, RunCompletedPayload(run_id=f"r0-{tag}"))
    assert http.post("/v1/events", json=before, headers=writer).status_code == 202  # no policy

    policy = ev(ProjectPolicySet, project, policy_payload(require_conclusion=True))
    assert http.post("/v1/events", json=policy, headers=writer).status_code == 403  # not admin
    assert http.post("/v1/events", json=policy, headers=admin).status_code == 202
    project_log(settings, neo4j_driver)

    bare = ev(RunCompleted, project, RunCompletedPayload(run_id=f"r1-{tag}"))
    answer = http.post("/v1/events", json=bare, headers=writer)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "conclusion_required"
    assert error["details"] == {"index": 0, "run": run_id(f"r1-{tag}"), "project": project}
    told = RunCompletedPayload(run_id=f"r2-{tag}", conclusion="warmup 2k steps is enough")
    assert (
        http.post("/v1/events", json=ev(RunCompleted, project, told), headers=writer).status_code
        == 202
    )
    project_log(settings, neo4j_driver)
    nodes = read_graph(neo4j_driver, project).nodes
    assert nodes[f"project:{project}"]["props"]["require_conclusion"] is True
    assert nodes[run_id(f"r0-{tag}")]["props"]["status"] == "completed"
    assert nodes[run_id(f"r1-{tag}")]["props"]["status"] == "running"
    assert nodes[run_id(f"r2-{tag}")]["props"]["conclusion"] == "warmup 2k steps is enough"


def body(*events: Event) -> list[dict[str, Any]]:
    return [json.loads(e.to_json_bytes()) for e in events]


def test_incomplete_records_are_422_naming_what_is_missing(
    settings: IngestSettings, neo4j_driver: Driver, project: str, access: Any, http: TestClient
) -> None:
    tag = project[-8:]
    writer = access.headers(f"service:w-{tag}", grants={project: ("writer",)})
    admin = access.headers(f"service:a-{tag}", grants={project: ("admin",)})
    required = {RUN: ("code", "environment", "inputs"), DATA: ("licence", "source")}
    rule = policy(project, {**required, MODEL: ("evaluation",)}, gates=True)
    assert http.post("/v1/events", json=body(rule), headers=admin).status_code == 202
    project_log(settings, neo4j_driver)

    # One incomplete event refuses its batch, naming it (the complete run is not written).
    complete, bare = started(project), started(project, without=RUN_ELEMENTS)
    answer = http.post("/v1/events", json=body(complete, bare), headers=writer)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "record_incomplete"
    assert error["details"] == {
        "index": 1,
        "record": bare.subject,
        "kind": "run",
        "project": project,
        "missing": ["code", "environment", "inputs"],
        "gates": [],
    }
    assert error["message"].startswith("event 1 (run.started): run ")
    assert "nothing of the batch was written" in error["message"]

    unlicensed = version(project, "crawl", without=("licence",), checks={"dedup": True})
    error = http.post("/v1/events", json=body(unlicensed), headers=writer).json()["error"]
    assert (error["code"], error["details"]["missing"]) == ("record_incomplete", ["licence"])

    # Gates and evaluations recorded earlier in the same request count.
    clean = version(project, "clean", checks={"dedup": True, "pii": True})
    dirty = version(project, "dirty", checks={"dedup": True, "pii": False})
    trains = started(project, train=(clean.subject,))
    evaluation, approval = evaluated(project), approved(project)
    ok = body(clean, dirty, trains, evaluation, approval)
    assert http.post("/v1/events", json=ok, headers=writer).status_code == 202
    # Appended in steps: the log puts what a verdict read strictly before the event judged.
    at = {
        json.loads(r.value)["event_id"]: r.timestamp for b in read_log_in_order(settings) for r in b
    }
    assert at[str(clean.event_id)] < at[str(trains.event_id)]
    assert at[str(evaluation.event_id)] < at[str(approval.event_id)]
    project_log(settings, neo4j_driver)

    on_dirty = started(project, train=(clean.subject, dirty.subject))
    error = http.post("/v1/events", json=body(on_dirty), headers=writer).json()["error"]
    assert error["details"]["missing"] == ["passed_gates"]
    assert error["details"]["gates"] == [{"dataset_version": dirty.subject, "failed": ["pii"]}]
    assert f"{dirty.subject} (quality check 'pii' failed)" in error["message"]
    unevaluated = approved(project, "other-lm")
    error = http.post("/v1/events", json=body(unevaluated), headers=writer).json()["error"]
    assert (error["details"]["record"], error["details"]["missing"]) == (
        model_version(project, "other-lm"),
        ["evaluation"],
    )

    nodes = read_graph(neo4j_driver, project).nodes
    assert trains.subject in nodes and complete.subject not in nodes
    assert nodes[model_version(project)]["props"]["status"] == "approved"
    assert json.loads(nodes[f"project:{project}"]["props"]["required_elements"]) == {
        "dataset_version": ["licence", "source"],
        "model_version": ["evaluation"],
        "run": ["code", "environment", "inputs"],
    }


def test_a_policy_earlier_in_the_request_counts_and_batches_at_the_limit(
    settings: IngestSettings, neo4j_driver: Driver, project: str, access: Any, http: TestClient
) -> None:
    tag = project[-8:]
    admin = access.headers(f"service:a-{tag}", grants={project: ("admin",)})
    rule = policy(project, {RUN: ("code",)})
    first = [rule, *[started(project) for _ in range(MAX_BATCH_EVENTS - 2)]]
    first.append(started(project, without=("code",)))  # judged by the policy before it
    answer = http.post("/v1/events", json=body(*first), headers=admin)
    assert answer.status_code == 422
    assert answer.json()["error"]["details"]["index"] == MAX_BATCH_EVENTS - 1
    # Three full batches (three times the limit in all): two complete ones pass, the one
    # holding a single incomplete run is refused whole.
    answers = []
    for n in range(3):
        batch = [started(project, without=("experiment",)) for _ in range(MAX_BATCH_EVENTS)]
        if n == 1:
            batch[MAX_BATCH_EVENTS // 2] = started(project, without=("code",))
        answers.append(http.post("/v1/events", json=body(rule, *batch[1:]), headers=admin))
    assert [a.status_code for a in answers] == [202, 422, 202]
    assert answers[1].json()["error"]["details"]["index"] == MAX_BATCH_EVENTS // 2
