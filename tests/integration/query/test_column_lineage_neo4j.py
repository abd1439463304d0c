"""Column lineage over Neo4j: OpenLineage run events with `columnLineage` facets (raw -> clean ->
features) are wrapped, projected and written as the projector would, then asked through GraphQL,
Marquez's `GET /api/v1/column-lineage` (httpx) and the Marquez Python client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from marquez_client import MarquezClient
from neo4j import Driver
from support.http_service import served

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app

pytestmark = pytest.mark.integration

PRODUCER = "https://example.com/pipelines/lake"
FACET = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
RAW, CLEAN, FEATURES = "lake.raw", "lake.clean", "lake.features"


def _field(namespace: str, dataset: str, field: str, **extra: Any) -> dict[str, Any]:
    return {"namespace": namespace, "name": dataset, "field": field, **extra}


def _facet(fields: dict[str, list[dict[str, Any]]], **per_field: Any) -> dict[str, Any]:
    return {
        "_producer": PRODUCER,
        "_schemaURL": FACET,
        "fields": {name: {"inputFields": inputs, **per_field} for name, inputs in fields.items()},
    }


def _event(namespace: str, job: str, source: str, target: str, facet: dict[str, Any]) -> Any:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-03-01T10:00:00+00:00",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": [{"namespace": namespace, "name": source}],
        "outputs": [{"namespace": namespace, "name": target, "facets": {"columnLineage": facet}}],
    }


def pipeline(namespace: str) -> list[dict[str, Any]]:
    """raw.user_id -> clean.uid -> features.uid_hash; raw.ts -> clean.day."""
    identity = [{"type": "DIRECT", "subtype": "IDENTITY", "description": "renamed"}]
    clean = _facet(
        {
            "uid": [_field(namespace, RAW, "user_id", transformations=identity)],
            "day": [_field(namespace, RAW, "ts")],
        }
    )
    features = _facet(
        {"uid_hash": [_field(namespace, CLEAN, "uid")]},
        transformationDescription="sha256(uid)",
        transformationType="MASKED",
    )
    return [
        _event(namespace, "lake.clean_job", RAW, CLEAN, clean),
        _event(namespace, "lake.features_job", CLEAN, FEATURES, features),
    ]


@pytest.fixture()
def namespace(neo4j_driver: Driver, project: str) -> str:
    """A namespace of this test alone, mapped to its project, holding the pipeline."""
    ns = f"s3://lake-{project}"
    names = NamespaceMap({ns: project})
    GraphWriter(neo4j_driver).write([project_event(wrap(e, names)) for e in pipeline(ns)])
    return ns


@pytest.fixture()
def reader_token(access: Any, project: str) -> str:
    return str(access.token(f"service:cl-{project[-8:]}", grants={project: ("reader",)}))


@pytest.fixture()
def stranger_token(access: Any) -> str:
    other = f"other-{uuid.uuid4().hex[:8]}"
    return str(access.token(f"service:cl-x-{other[-8:]}", grants={other: ("reader",)}))


@pytest.fixture()
def client(neo4j_driver: Driver, namespace: str) -> Iterator[TestClient]:
    with TestClient(create_app(driver=neo4j_driver)) as test_client:
        yield test_client


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


QUERY = """
query($id: ID!, $field: String) {
  columnLineage(id: $id, field: $field) {
    columns { dataset { id } field depth }
    edges { input { dataset field } output { dataset field } transformationType }
  }
}
"""


def test_graphql_upstream_of_a_final_column_reaches_raw_through_the_middle(
    client: TestClient, project: str, reader_token: str
) -> None:
    variables = {"id": f"dataset:{project}/{FEATURES}", "field": "uid_hash"}
    response = client.post(
        "/graphql", json={"query": QUERY, "variables": variables}, headers=_bearer(reader_token)
    )
    answer = response.json()
    assert "errors" not in answer, answer
    found = answer["data"]["columnLineage"]
    flow = {
        (e["input"]["dataset"], e["input"]["field"], e["output"]["dataset"], e["output"]["field"])
        for e in found["edges"]
    }
    assert flow == {
        (f"dataset:{project}/{CLEAN}", "uid", f"dataset:{project}/{FEATURES}", "uid_hash"),
        (f"dataset:{project}/{RAW}", "user_id", f"dataset:{project}/{CLEAN}", "uid"),
    }
    depths = {(c["dataset"]["id"], c["field"]): c["depth"] for c in found["columns"]}
    assert depths[(f"dataset:{project}/{RAW}", "user_id")] == 2


def test_marquez_endpoint_upstream_and_downstream(
    client: TestClient, namespace: str, reader_token: str
) -> None:
    final = f"datasetField:{namespace}:{FEATURES}:uid_hash"
    middle = f"datasetField:{namespace}:{CLEAN}:uid"
    raw = f"datasetField:{namespace}:{RAW}:user_id"
    response = client.get(
        "/api/v1/column-lineage", params={"nodeId": final}, headers=_bearer(reader_token)
    )
    assert response.status_code == 200, response.text
    graph = {node["id"]: node for node in response.json()["graph"]}
    assert set(graph) == {final, middle, raw}
    assert graph[final]["inEdges"] == [{"origin": final, "destination": middle}]
    assert graph[middle]["inEdges"] == [{"origin": middle, "destination": raw}]
    assert graph[final]["data"]["transformationType"] == "MASKED"
    # The same dataset named with a `dataset:` id and a field, downstream included.
    params = {"nodeId": f"dataset:{namespace}:{CLEAN}:uid", "withDownstream": "true"}
    both = client.get("/api/v1/column-lineage", params=params, headers=_bearer(reader_token))
    assert {node["id"] for node in both.json()["graph"]} == {final, middle, raw}


def test_marquez_python_client(neo4j_driver: Driver, namespace: str, reader_token: str) -> None:
    with served(create_app(driver=neo4j_driver)) as url:
        marquez = MarquezClient(url, api_key=reader_token)
        by_field = marquez.get_column_lineage_by_dataset_field(namespace, FEATURES, "uid_hash")
        by_dataset = marquez.get_column_lineage_by_dataset(namespace, RAW, with_downstream=True)
    ids = {node["id"] for node in by_field["graph"]}
    assert f"datasetField:{namespace}:{RAW}:user_id" in ids
    assert f"datasetField:{namespace}:{CLEAN}:uid" in ids
    downstream = {node["id"] for node in by_dataset["graph"]}
    assert f"datasetField:{namespace}:{FEATURES}:uid_hash" in downstream
    assert f"datasetField:{namespace}:{CLEAN}:day" in downstream


def test_a_reader_of_another_project_sees_nothing(
    client: TestClient, namespace: str, project: str, stranger_token: str
) -> None:
    variables = {"id": f"dataset:{project}/{FEATURES}", "field": "uid_hash"}
    answer = client.post(
        "/graphql", json={"query": QUERY, "variables": variables}, headers=_bearer(stranger_token)
    ).json()
    assert answer["data"]["columnLineage"] is None
    assert answer["errors"][0]["extensions"]["code"] == "not_found"
    params = {"nodeId": f"datasetField:{namespace}:{FEATURES}:uid_hash"}
    response = client.get("/api/v1/column-lineage", params=params, headers=_bearer(stranger_token))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
