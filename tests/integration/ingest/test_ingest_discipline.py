"""The records discipline at ingest, against the real Kafka broker and Neo4j, with the real
projector between the requests: a recorded environment changed under its key is 409 naming the
key and the fields, the same snapshot again is accepted, and once the project's admin set the
policy, a run.completed without a conclusion is 422 naming the run (with one: 202)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from provgraph.ingest.app import create_app
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import (
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
from provgraph.schemas.events.policy import ProjectPolicySetPayload
from provgraph.schemas.events.run import RunCompletedPayload

KEY = "trainer-cu121-2024-05"
PACKAGES = {"numpy": "1.26.4", "torch": "2.3.0"}


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
    projector = build_projector(settings, driver)
    projector.run_until_idle(timeout_s=60)
    projector.close()


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

    policy = ev(ProjectPolicySet, project, ProjectPolicySetPayload(require_conclusion=True))
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
