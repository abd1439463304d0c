"""The real openlineage-python client feeds the graph through ingest, and joins training lineage.

A data pipeline emits OpenLineage (HTTP transport -> ``/api/v1/lineage``) and produces dataset
X version v1; a training run emitted with provgraph's SDK consumes X v1. After projecting, one
DatasetVersion node joins both and walking upstream from the training run reaches the
OpenLineage run and its job. Real Kafka and Neo4j; uvicorn in a thread on a free port.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from neo4j import Driver
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import dataset_version_dataset, schema_dataset
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport
from support.http_service import served

from provgraph.client.http_transport import HttpTransport as ProvgraphHttp
from provgraph.ingest.app import create_app
from provgraph.ingest.openlineage import NamespaceMap
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import ModelVersionRegistered, RunStarted
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload

pytestmark = pytest.mark.integration

PRODUCER = "https://example.com/pipelines/prep"


@pytest.fixture()
def ol_token(access: Any, project: str) -> str:
    """A token that may write the project the namespaces map to, and nothing else."""
    return str(access.token(f"service:ol-{uuid.uuid4().hex[:8]}", grants={project: ("writer",)}))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture()
def ingest_url(settings: IngestSettings, project: str) -> Iterator[str]:
    app = create_app(settings)
    app.state.openlineage_names = NamespaceMap(
        {"s3://corpora": project, "pipelines": project, "postgres://db:5432": project}
    )
    with served(app) as url:
        yield url


def _pipeline_events(run_id: str) -> list[RunEvent]:
    job = Job(namespace="pipelines", name="prep.web_crawl")
    version = dataset_version_dataset.DatasetVersionDatasetFacet(datasetVersion="v1")
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[schema_dataset.SchemaDatasetFacetFields(name="text", type="string")]
    )
    output = OutputDataset(
        "s3://corpora", "web-crawl", facets={"version": version, "schema": schema}
    )
    raw = InputDataset("postgres://db:5432", "public.raw_pages")
    now = datetime.now(UTC).isoformat()

    def event(state: RunState, **io: Any) -> RunEvent:
        return RunEvent(
            eventType=state, eventTime=now, run=Run(run_id), job=job, producer=PRODUCER, **io
        )

    # Inputs and outputs only on START; COMPLETE carries none (they must be kept).
    return [event(RunState.START, inputs=[raw], outputs=[output]), event(RunState.COMPLETE)]


def _training_events(project: str, train_run: str) -> list[Any]:
    started = RunStarted.create(
        project=project,
        producer="https://provgraph.dev/sdk/python/test",
        actor="user:test",
        payload=RunStartedPayload(
            run_id=train_run,
            inputs=(RunInput(dataset_version=f"dataset:{project}/web-crawl@v1", role="train"),),
        ),
    )
    model = ModelVersionRegistered.create(
        project=project,
        producer="https://provgraph.dev/sdk/python/test",
        actor="user:test",
        payload=ModelVersionRegisteredPayload(
            name="chat", version="1", produced_by_run=f"run:{train_run}"
        ),
    )
    return [started, model]


def _project(settings: IngestSettings, driver: Driver) -> None:
    projector = build_projector(settings, driver)
    try:
        projector.run_until_idle(60)
    finally:
        projector.close()


def test_pipeline_and_training_run_meet_at_one_dataset_version(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    ingest_url: str,
    ol_token: str,
    admin_headers: dict[str, str],
) -> None:
    ol_run, train_run = str(uuid.uuid4()), str(uuid.uuid4())
    auth = ApiKeyTokenProvider({"apiKey": ol_token})  # sent as "Authorization: Bearer <key>"
    client = OpenLineageClient(transport=HttpTransport(HttpConfig(url=ingest_url, auth=auth)))
    for event in _pipeline_events(ol_run):
        client.emit(event)
    ProvgraphHttp(ingest_url, token=ol_token).send(_training_events(project, train_run))
    _project(settings, neo4j_driver)

    version = f"dataset:{project}/web-crawl@v1"
    rows, _, _ = neo4j_driver.execute_query(
        "MATCH (v:DatasetVersion {id: $v}) "
        "MATCH (t:Run {id: $t})-[:USED]->(v)-[:GENERATED_BY]->(o:Run {id: $o})-[:PART_OF]->(j:Job) "
        "MATCH (v)-[:VERSION_OF]->(d:Dataset) "
        "RETURN count(DISTINCT v) AS n, o.status AS status, j.id AS job, v.schema_fields AS f",
        v=version,
        t=f"run:{train_run}",
        o=f"run:{ol_run}",
    )
    assert [dict(r) for r in rows] == [
        {"n": 1, "status": "completed", "job": f"job:{project}/prep.web_crawl", "f": ["text"]}
    ]
    upstream, _, _ = neo4j_driver.execute_query(
        "MATCH (t:Run {id: $t})-[*1..6]->(n) RETURN collect(DISTINCT n.id) AS ids",
        t=f"run:{train_run}",
    )
    reached = set(upstream[0]["ids"])
    assert {version, f"run:{ol_run}", f"job:{project}/prep.web_crawl"} <= reached
    # Read without a version facet: (Run)-[:READS]->(Dataset), no version known to link.
    assert f"dataset:{project}/public.raw_pages" in reached
    assert not {i for i in reached if i.startswith(f"dataset:{project}/public.raw_pages@")}
    _assert_through_the_reader(neo4j_driver, settings, project, train_run, ol_run)
    _assert_through_marquez_rest(neo4j_driver, admin_headers, version, train_run, ol_run)


def _assert_through_marquez_rest(
    driver: Driver, headers: dict[str, str], version: str, train_run: str, ol_run: str
) -> None:
    """Tools that speak Marquez see the same join: GET /api/v1/lineage on the query service."""
    from fastapi.testclient import TestClient

    from provgraph.query.app import create_app

    with TestClient(create_app(driver=driver), headers=headers) as http:
        answer = http.get("/api/v1/lineage", params={"nodeId": version, "depth": 1})
    assert answer.status_code == 200, answer.text
    graph = {node["id"]: node for node in answer.json()["graph"]}
    assert {f"run:{train_run}", f"run:{ol_run}"} <= set(graph)
    # Data flows from the pipeline's run into the version, and from the version into training.
    assert {"origin": f"run:{ol_run}", "destination": version} in graph[version]["inEdges"]
    assert {"origin": version, "destination": f"run:{train_run}"} in graph[version]["outEdges"]


def _assert_through_the_reader(
    driver: Driver, settings: IngestSettings, project: str, train_run: str, ol_run: str
) -> None:
    from provgraph.query.read.model import Scope
    from provgraph.query.read.readers import neo4j_readers

    reader = neo4j_readers(driver, settings.neo4j_database).graph
    lineage = reader.lineage(f"run:{train_run}", Scope.everything(), depth=6)
    assert lineage is not None
    ids = {node.id for node in lineage.nodes}
    assert {f"run:{ol_run}", f"job:{project}/prep.web_crawl"} <= ids
    impact = reader.impact(f"dataset:{project}/web-crawl@v1", Scope.everything())
    assert impact is not None
    assert [item.node.id for item in impact] == [f"model:{project}/chat@1"]


def test_invalid_openlineage_events_get_422_with_the_schema_path(
    ingest_url: str, ol_token: str
) -> None:
    event = {
        "eventType": "START",
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "not-a-uuid"},
        "job": {"namespace": "pipelines"},
    }
    answer = httpx.post(f"{ingest_url}/api/v1/lineage", json=event, headers=_bearer(ol_token))
    assert answer.status_code == 422
    errors = answer.json()["error"]["details"]["errors"]
    assert {(e["path"], e["reason"]) for e in errors} == {
        ("$.job", "'name' is a required property"),
        ("$.run.runId", "'not-a-uuid' is not a 'uuid'"),
    }
    batch = httpx.post(
        f"{ingest_url}/api/v1/lineage/batch", json=[event], headers=_bearer(ol_token)
    )
    assert batch.status_code == 422
    assert (
        httpx.post(
            f"{ingest_url}/api/v1/lineage", json=[event], headers=_bearer(ol_token)
        ).status_code
        == 422
    )


def test_batch_endpoint_and_resend_is_a_duplicate(
    settings: IngestSettings, neo4j_driver: Driver, ingest_url: str, project: str, ol_token: str
) -> None:
    from openlineage.client.serde import Serde

    run_id = str(uuid.uuid4())
    events = [Serde.to_dict(e) for e in _pipeline_events(run_id)]
    first = httpx.post(f"{ingest_url}/api/v1/lineage/batch", json=events, headers=_bearer(ol_token))
    again = httpx.post(f"{ingest_url}/api/v1/lineage/batch", json=events, headers=_bearer(ol_token))
    assert first.status_code == again.status_code == 201
    ids = [e["event_id"] for e in first.json()["events"]]
    assert ids == [e["event_id"] for e in again.json()["events"]]
    _project(settings, neo4j_driver)
    rows, _, _ = neo4j_driver.execute_query(
        "MATCH (e:AppliedEvent) WHERE e.event_id IN $ids RETURN count(e) AS n", ids=ids
    )
    assert rows[0]["n"] == 2
