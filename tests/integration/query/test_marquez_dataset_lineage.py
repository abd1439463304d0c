"""Lineage of a Dataset goes through its versions (the reader expands the root upstream), over
the demo story in Neo4j, and the Marquez namespace of a provgraph project lists its datasets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.read.model import Direction, Scope
from provgraph.query.read.readers import neo4j_readers

pytestmark = pytest.mark.integration


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> str:
    GraphWriter(neo4j_driver).write(
        [project_event(e) for e in demo_events(project, with_sweep=False)]
    )
    return project


@pytest.fixture()
def client(neo4j_driver: Driver, demo: str, access: Any) -> Iterator[TestClient]:
    reader = access.headers(f"service:mqz-{demo[-8:]}", grants={demo: ("reader",)})
    with TestClient(create_app(driver=neo4j_driver), headers=reader) as test_client:
        yield test_client


def test_upstream_of_a_dataset_starts_at_its_versions(neo4j_driver: Driver, demo: str) -> None:
    reader = neo4j_readers(neo4j_driver).graph
    web = f"dataset:{demo}/web-corpus"
    lineage = reader.lineage(web, Scope(frozenset({demo})), direction=Direction.UPSTREAM, depth=2)
    assert lineage is not None
    assert dict(lineage.depths) == {web: 0, f"{web}@v1": 1, f"{web}@v2": 1}
    # A version root is not expanded: upstream of v2 is what it was derived from.
    version = reader.lineage(f"{web}@v2", Scope(frozenset({demo})), depth=1)
    assert version is not None and dict(version.depths) == {f"{web}@v2": 0, f"{web}@v1": 1, web: 1}


def test_rest_lineage_of_a_dataset_reaches_the_runs_that_used_it(
    client: TestClient, demo: str
) -> None:
    answer = client.get("/api/v1/lineage", params={"nodeId": f"dataset:{demo}/web-corpus"})
    ids = {n["id"] for n in answer.json()["graph"]}
    assert {f"run:{demo}-demo-pretrain-001", f"dataset:{demo}/web-corpus@v2"} <= ids


def test_a_project_is_the_namespace_of_its_native_datasets(client: TestClient, demo: str) -> None:
    listed = client.get(f"/api/v1/namespaces/{demo}/datasets").json()
    assert [d["name"] for d in listed["datasets"]] == [
        "eval-suite",
        "heldout",
        "instruct",
        "web-corpus",
    ]
    assert listed["totalCount"] == 4
    web = client.get(f"/api/v1/namespaces/{demo}/datasets/web-corpus").json()
    assert (web["currentVersion"], web["nodeId"]) == ("v2", f"dataset:{demo}/web-corpus")
    jobs = client.get(f"/api/v1/namespaces/{demo}/jobs").json()
    assert [j["name"] for j in jobs["jobs"]] == ["exp-001"]
    run = client.get(f"/api/v1/jobs/runs/{demo}-demo-pretrain-001").json()
    assert run["jobVersion"] == {"namespace": demo, "name": "exp-001", "version": None}
    assert sorted(v["datasetVersionId"]["name"] for v in run["inputDatasetVersions"]) == [
        "heldout",
        "web-corpus",
    ]
