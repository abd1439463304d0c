"""GET /api/v1/lineage (Marquez's shape) over the demo story, through GraphReader and Neo4j."""

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


@pytest.fixture()
def client(neo4j_driver: Driver, project: str, access: Any) -> Iterator[TestClient]:
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    reader = access.headers(f"service:reader-{project[-8:]}", grants={project: ("reader",)})
    with TestClient(create_app(driver=neo4j_driver), headers=reader) as test_client:
        yield test_client


def _lineage(client: TestClient, node_id: str, depth: int | None = None) -> Any:
    params: dict[str, Any] = {"nodeId": node_id}
    if depth is not None:
        params["depth"] = depth
    return client.get("/api/v1/lineage", params=params)


def test_depth_one_around_a_run(client: TestClient, project: str) -> None:
    run = f"run:{project}-demo-pretrain-001"
    ckpt = f"checkpoint:{project}-demo-pretrain-001"
    answer = _lineage(client, run, depth=1).json()
    assert [(n["id"], n["type"]) for n in answer["graph"]] == [
        (run, "JOB"),
        (f"{ckpt}/1000", "CHECKPOINT"),
        (f"{ckpt}/2000", "CHECKPOINT"),
        (f"dataset:{project}/heldout@v1", "DATASET"),
        (f"dataset:{project}/web-corpus@v2", "DATASET"),
        (f"environment:{project}/trainer-2026-01", "ENVIRONMENT"),
        (f"experiment:{project}/exp-001", "JOB"),
        (f"model:{project}/base-1b@1.0.0", "MODEL"),
    ]
    root = answer["graph"][0]
    # Data flow: what the run used flows into it; what it generated flows out of it.
    assert sorted(e["origin"] for e in root["inEdges"]) == [
        f"{ckpt}/1000",  # RESUMED_FROM
        f"dataset:{project}/heldout@v1",
        f"dataset:{project}/web-corpus@v2",
        f"environment:{project}/trainer-2026-01",
        f"experiment:{project}/exp-001",
    ]
    assert {e["destination"] for e in root["inEdges"]} == {run}
    assert [e["destination"] for e in root["outEdges"]] == [
        f"{ckpt}/1000",
        f"{ckpt}/2000",
        f"model:{project}/base-1b@1.0.0",
    ]
    assert (root["data"]["name"], root["data"]["namespace"]) == ("pretrain-1b", project)
    assert answer["truncated"] is False


def test_edges_are_consistent_between_both_ends(client: TestClient, project: str) -> None:
    answer = _lineage(client, f"dataset:{project}/instruct@v1-clean", depth=3).json()
    nodes = {n["id"]: n for n in answer["graph"]}
    for node in answer["graph"]:
        for edge in node["outEdges"]:
            assert edge["origin"] == node["id"]
            assert edge in nodes[edge["destination"]]["inEdges"]
    # Upstream (its source version) and downstream (the fine-tune run, and its model) both.
    assert {f"dataset:{project}/instruct@v1", f"model:{project}/chat-1b@1.0.0"} <= set(nodes)


def test_default_depth_reaches_the_deployment(client: TestClient, project: str) -> None:
    answer = _lineage(client, f"dataset:{project}/web-corpus@v2").json()
    assert f"deployment:{project}/chat-api" in {n["id"] for n in answer["graph"]}


def test_unknown_node_is_404(client: TestClient) -> None:
    response = _lineage(client, "dataset:nowhere/nothing@v0")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(("depth", "walked"), [(0, 1), (-2, 1), (21, 20), (100_000, 20)])
def test_any_depth_is_walked_within_the_bounds(
    client: TestClient, project: str, depth: int, walked: int
) -> None:
    # Marquez takes any integer depth: provgraph walks it between 1 and the maximum (20).
    run = f"run:{project}-demo-pretrain-001"
    response = _lineage(client, run, depth=depth)
    assert response.status_code == 200, response.text
    assert response.json() == _lineage(client, run, depth=walked).json()


def test_missing_node_id_is_an_invalid_request(client: TestClient) -> None:
    response = client.get("/api/v1/lineage")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
