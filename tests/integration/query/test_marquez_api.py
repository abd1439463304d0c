"""The Marquez read API over OpenLineage-born lineage, asked by Marquez's own client.

OpenLineage run events are wrapped as ingest wraps them, folded by the projection and written
by the writer into the real Neo4j; the query app is served over HTTP and asked by
`marquez_client.MarquezClient` (unchanged, from PyPI) for namespaces, datasets, dataset
versions, jobs, job runs and a run, and by httpx for `/api/v1/lineage` with Marquez ids and
for `/api/v1/search`. Namespaces and names hold `:` and `/`, as real ones do.

    ingest/raw:load (r0) ─▶ raw@run-<r0> ─▶ prep/tokens:build (r1: COMPLETE) ─▶ tokens/abc:2@v1
                                        └─▶ prep/tokens:build (r2: FAIL)     ─▶ tokens/abc:2@v2
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from marquez_client import MarquezClient
from marquez_client.errors import APIError
from neo4j import Driver
from support.http_service import served

from provgraph.ingest.openlineage import NamespaceMap
from provgraph.ingest.openlineage.wrap import wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app

pytestmark = pytest.mark.integration

PRODUCER = "https://example.com/pipelines/prep"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
TOKENS, RAW = "tokens/abc:2", "raw"
LOAD, BUILD = "ingest/raw:load", "prep/tokens:build"


@dataclass(frozen=True)
class World:
    """The namespaces, runs and a reader token of one test's lineage."""

    project: str
    lake: str  # the datasets' OpenLineage namespace
    jobs: str  # the jobs' OpenLineage namespace
    r0: str
    r1: str
    r2: str


def _time(minute: int) -> str:
    return f"2026-01-05T09:{minute:02d}:00+00:00"


def _facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://openlineage.io/spec/facets/x", **fields}


def _dataset(namespace: str, name: str, version: str | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": _facet(fields=[{"name": "text", "type": "string"}]),
        "documentation": _facet(description=f"the {name} table"),
    }
    if version is not None:
        facets["version"] = _facet(datasetVersion=version)
    return {"namespace": namespace, "name": name, "facets": facets}


def _event(
    state: str, run: str, job: tuple[str, str], minute: int, **io: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "eventType": state,
        "eventTime": _time(minute),
        "run": {"runId": run, "facets": {}},
        "job": {"namespace": job[0], "name": job[1], "facets": {}},
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
    }


def _events(w: World) -> list[dict[str, Any]]:
    load, build = (w.jobs, LOAD), (w.jobs, BUILD)
    raw = {"namespace": w.lake, "name": RAW, "facets": {}}  # no version facet: run-<r0> / read
    return [
        _event("START", w.r0, load, 0, outputs=[_dataset(w.lake, RAW)]),
        _event("COMPLETE", w.r0, load, 1),
        _event("START", w.r1, build, 2, inputs=[raw], outputs=[_dataset(w.lake, TOKENS, "v1")]),
        _event("COMPLETE", w.r1, build, 3),
        _event("START", w.r2, build, 4, inputs=[raw], outputs=[_dataset(w.lake, TOKENS, "v2")]),
        _event("FAIL", w.r2, build, 5),
    ]


@pytest.fixture()
def world(neo4j_driver: Driver, project: str) -> World:
    w = World(
        project,
        lake=f"s3://{project}-lake",
        jobs=f"airflow://{project}:prod",
        r0=str(uuid.uuid4()),
        r1=str(uuid.uuid4()),
        r2=str(uuid.uuid4()),
    )
    names = NamespaceMap({w.lake: project, w.jobs: project})
    events = [wrap(e, names) for e in _events(w)]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return w


@pytest.fixture()
def url(neo4j_driver: Driver) -> Iterator[str]:
    with served(create_app(driver=neo4j_driver)) as base:
        yield base


def _token(access: Any, project: str) -> str:
    return str(access.token(f"service:mqz-{uuid.uuid4().hex[:8]}", grants={project: ("reader",)}))


@pytest.fixture()
def token(access: Any, world: World) -> str:
    return _token(access, world.project)


@pytest.fixture()
def marquez(url: str, token: str) -> MarquezClient:
    # The client keeps its bearer token in a module-wide header map: the last one made wins.
    return MarquezClient(url, api_key=token)


@pytest.fixture()
def http(url: str, token: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
        yield client


def test_namespaces(marquez: MarquezClient, world: World) -> None:
    listed = marquez.list_namespaces()
    assert listed["totalCount"] == 2
    assert [n["name"] for n in listed["namespaces"]] == [world.jobs, world.lake]
    lake = marquez.get_namespace(world.lake)
    assert (lake["name"], lake["ownerName"]) == (world.lake, world.project)
    assert lake["createdAt"] <= lake["updatedAt"]
    with pytest.raises(APIError):
        marquez.get_namespace(f"{world.lake}-nope")


def test_datasets_and_their_current_version(marquez: MarquezClient, world: World) -> None:
    listed = marquez.list_datasets(world.lake)
    assert listed["totalCount"] == 2
    assert [d["name"] for d in listed["datasets"]] == [RAW, TOKENS]
    page = marquez.list_datasets(world.lake, limit=1, offset=1)
    assert (page["totalCount"], [d["name"] for d in page["datasets"]]) == (2, [TOKENS])
    tokens = marquez.get_dataset(world.lake, TOKENS)
    assert tokens["id"] == {"namespace": world.lake, "name": TOKENS}
    assert tokens["currentVersion"] == "v2"  # the latest created
    assert tokens["fields"] == [{"name": "text", "type": "string", "tags": [], "description": None}]
    assert tokens["facets"]["documentation"]["description"] == f"the {TOKENS} table"
    assert tokens["nodeId"] == f"dataset:{world.lake}:{TOKENS}"
    raw = marquez.get_dataset(world.lake, RAW)
    assert raw["currentVersion"] == f"run-{world.r0}"


def test_dataset_versions(marquez: MarquezClient, world: World) -> None:
    listed = marquez.list_dataset_versions(world.lake, TOKENS)
    assert listed["totalCount"] == 2
    assert [v["version"] for v in listed["versions"]] == ["v2", "v1"]
    assert [v["createdByRun"]["id"] for v in listed["versions"]] == [world.r2, world.r1]
    v1 = marquez.get_dataset_version(world.lake, TOKENS, "v1")
    assert v1["id"] == {"namespace": world.lake, "name": TOKENS, "version": "v1"}
    assert v1["createdByRun"]["state"] == "COMPLETED"
    assert v1["createdAt"] == "2026-01-05T09:02:00.000000Z"
    with pytest.raises(APIError):
        marquez.get_dataset_version(world.lake, TOKENS, "v9")


def test_jobs_and_their_latest_run(marquez: MarquezClient, world: World) -> None:
    listed = marquez.list_jobs(world.jobs)
    assert [j["name"] for j in listed["jobs"]] == [LOAD, BUILD]
    assert listed["totalCount"] == 2
    build = marquez.get_job(world.jobs, BUILD)
    assert build["id"] == {"namespace": world.jobs, "name": BUILD}
    assert (build["latestRun"]["id"], build["latestRun"]["state"]) == (world.r2, "FAILED")
    assert build["inputs"] == [{"namespace": world.lake, "name": RAW}]
    assert build["outputs"] == [{"namespace": world.lake, "name": TOKENS}]


def test_job_runs_and_one_run(marquez: MarquezClient, world: World) -> None:
    runs = marquez.list_job_runs(world.jobs, BUILD)
    assert runs["totalCount"] == 2
    assert [(r["id"], r["state"]) for r in runs["runs"]] == [
        (world.r2, "FAILED"),
        (world.r1, "COMPLETED"),
    ]
    run = marquez.get_job_run(world.r1)
    assert (run["startedAt"], run["endedAt"]) == (
        "2026-01-05T09:02:00.000000Z",
        "2026-01-05T09:03:00.000000Z",
    )
    assert run["durationMs"] == 60_000
    assert run["jobVersion"]["name"] == BUILD
    assert [v["datasetVersionId"] for v in run["outputDatasetVersions"]] == [
        {"namespace": world.lake, "name": TOKENS, "version": "v1"}
    ]
    # raw had no version facet: the version read is the latest one created before the start.
    assert [v["datasetVersionId"] for v in run["inputDatasetVersions"]] == [
        {"namespace": world.lake, "name": RAW, "version": f"run-{world.r0}"}
    ]
    with pytest.raises(APIError):
        marquez.get_job_run(str(uuid.uuid4()))


def test_lineage_by_marquez_ids(http: httpx.Client, world: World) -> None:
    tokens = f"dataset:{world.lake}:{TOKENS}"
    answer = http.get("/api/v1/lineage", params={"nodeId": tokens, "depth": 3})
    assert answer.status_code == 200, answer.text
    graph = {n["id"]: n for n in answer.json()["graph"]}
    assert answer.json()["graph"][0]["id"] == tokens
    job = f"job:{world.jobs}:{BUILD}"
    # Upstream through its versions: the runs that wrote them and their job.
    assert {f"run:{world.r1}", f"run:{world.r2}", job} <= set(graph)
    assert graph[job]["data"]["namespace"] == world.jobs
    # ... and what those runs read: raw without a version (READS), and the inferred version.
    assert {f"dataset:{world.lake}:{RAW}", f"dataset:{world.project}/raw@run-{world.r0}"} <= set(
        graph
    )
    again = http.get("/api/v1/lineage", params={"nodeId": job, "depth": 1})
    assert again.status_code == 200
    assert again.json()["graph"][0]["id"] == job  # an id of one answer is a good next question
    assert {n["id"] for n in again.json()["graph"][1:]} == {f"run:{world.r1}", f"run:{world.r2}"}
    missing = http.get("/api/v1/lineage", params={"nodeId": f"job:{world.jobs}:nope"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    malformed = http.get("/api/v1/lineage", params={"nodeId": "dataset:no-colon"})
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (400, "invalid_id")


def test_search(http: httpx.Client, world: World) -> None:
    found = http.get("/api/v1/search", params={"q": "abc:2"}).json()
    assert found == {
        "totalCount": 1,
        "results": [
            {
                "type": "DATASET",
                "name": TOKENS,
                "namespace": world.lake,
                "nodeId": f"dataset:{world.lake}:{TOKENS}",
                "updatedAt": "2026-01-05T09:04:00.000000Z",
            }
        ],
    }
    jobs = http.get("/api/v1/search", params={"q": "%tokens_build", "filter": "job"}).json()
    assert [(r["type"], r["name"]) for r in jobs["results"]] == [("JOB", BUILD)]
    bad = http.get("/api/v1/search", params={"q": "x", "filter": "model"})
    assert bad.status_code == 400


def test_a_reader_of_another_project_sees_none_of_it(
    url: str, world: World, access: Any, unique_name: str
) -> None:
    other = _token(access, f"{unique_name[:50]}-other")
    marquez = MarquezClient(url, api_key=other)
    assert marquez.list_namespaces()["totalCount"] == 0
    assert marquez.list_datasets(world.lake) == {"totalCount": 0, "datasets": []}
    assert marquez.list_jobs(world.jobs) == {"totalCount": 0, "jobs": []}
    for ask in (
        lambda: marquez.get_namespace(world.lake),
        lambda: marquez.get_dataset(world.lake, TOKENS),
        lambda: marquez.list_dataset_versions(world.lake, TOKENS),
        lambda: marquez.get_job(world.jobs, BUILD),
        lambda: marquez.list_job_runs(world.jobs, BUILD),
        lambda: marquez.get_job_run(world.r1),
    ):
        with pytest.raises(APIError):
            ask()
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {other}"}) as http:
        lineage = http.get("/api/v1/lineage", params={"nodeId": f"dataset:{world.lake}:{TOKENS}"})
        assert lineage.status_code == 404
        assert http.get("/api/v1/search", params={"q": "abc"}).json()["totalCount"] == 0
