"""Marquez's ids, names and response shapes of read-model views (pure code)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from provgraph.query.http.marquez import shapes
from provgraph.query.http.marquez.ids import (
    answer_id,
    is_marquez_id,
    name_of,
    namespace_of,
    run_key,
    search_pattern,
)
from provgraph.query.http.rest import marquez_graph
from provgraph.query.read.model import (
    DatasetDetail,
    EdgeView,
    JobDetail,
    Lineage,
    NamespaceView,
    NodeView,
    RunDetail,
    Slice,
    VersionDetail,
    VersionRef,
)
from provgraph.schemas.storage import encode_json

T0, T1, T2 = (
    "2026-01-05T09:00:00.000000Z",
    "2026-01-05T09:00:01.500000Z",
    "2026-01-05T10:00:00.000000Z",
)
NS, NAME = "s3://lake", "tokens/abc:2"
SCHEMA = {"fields": [{"name": "text", "type": "string", "description": "a line"}, {"type": "x"}]}


def node(node_id: str, kind: str, project: str = "lake", **props: Any) -> NodeView:
    return NodeView(node_id, kind, project, T0, T2, None, False, props)


def ol_dataset() -> NodeView:
    return node(
        "dataset:lake/tokens-abc-2-1a2b3c4d",
        "Dataset",
        ol_namespace=NS,
        ol_name=NAME,
        marquez_id=f"dataset:{NS}:{NAME}",
        schema_json=encode_json(SCHEMA),
        datasource_name="lake",
        description="tokens",
    )


def ol_version(label: str, created_at: str) -> NodeView:
    props = {"ol_namespace": NS, "ol_name": NAME, "version": label, "created_at": created_at}
    return node(f"dataset:lake/tokens-abc-2-1a2b3c4d@{label}", "DatasetVersion", **props)


def ol_job() -> NodeView:
    props = {
        "ol_namespace": "pipelines",
        "name": "prep/step:1",
        "marquez_id": "job:pipelines:prep/step:1",
    }
    return node("job:lake/prep-step-1-0f0f0f0f", "Job", **props)


def ol_run(status: str | None) -> NodeView:
    props: dict[str, Any] = {"run_key": "3f1c0e1e-0000-4000-8000-000000000001", "started_at": T0}
    if status is not None:
        props["status"] = status
    if status == "completed":
        props["ended_at"] = T1
    return node("run:3f1c0e1e-0000-4000-8000-000000000001", "Run", **props)


@pytest.mark.parametrize(
    ("value", "marquez"),
    [
        ("dataset:s3://lake:tokens/abc", True),
        ("job:pipelines:prep.step", True),
        ("dataset:food_delivery:public.delivery_7_days", True),
        ("dataset:lake/web@v1", False),  # provgraph's: never a second ':'
        ("job:lake/prep", False),
        ("run:abc", False),
        ("dataset::name", False),
        ("dataset:ns:", False),
        ("model:a:b", False),
    ],
)
def test_marquez_ids_are_told_from_provgraph_ids(value: str, marquez: bool) -> None:
    assert is_marquez_id(value) is marquez


def test_answer_ids_are_marquez_ids_for_ol_born_datasets_and_jobs_only() -> None:
    assert answer_id(ol_dataset()) == "dataset:s3://lake:tokens/abc:2"
    assert answer_id(ol_job()) == "job:pipelines:prep/step:1"
    version = node("dataset:lake/x@v1", "DatasetVersion", marquez_id="dataset:a:b")
    assert answer_id(version) == "dataset:lake/x@v1"
    assert answer_id(node("dataset:lake/web", "Dataset", name="web")) == "dataset:lake/web"


def test_namespaces_and_names() -> None:
    assert (namespace_of(ol_dataset()), name_of(ol_dataset())) == (NS, NAME)
    native = node("dataset:demo/web", "Dataset", project="demo", name="web")
    assert (namespace_of(native), name_of(native)) == ("demo", "web")
    experiment = node("experiment:demo/exp-001", "Experiment", project="demo", key="exp-001")
    assert name_of(experiment) == "exp-001"
    assert run_key(node("run:r-1", "Run")) == "r-1"


@pytest.mark.parametrize(
    ("query", "name", "found"),
    [
        ("abc", "Tokens/ABC:2", True),
        ("tok%2", "tokens/abc:2", True),
        ("a_c", "tokens/abc", True),
        ("a_c", "tokens/ac", False),
        ("a.c", "abc", False),  # '.' is text, not a wildcard
        ("(", "f(x)", True),
        ("xyz", "tokens", False),
    ],
)
def test_search_pattern_is_a_like_substring(query: str, name: str, found: bool) -> None:
    assert (re.fullmatch(search_pattern(query), name.lower()) is not None) is found


def test_dataset_shape_with_current_version_fields_and_facets() -> None:
    detail = DatasetDetail(ol_dataset(), ol_version("v2", T1))
    shaped = shapes.dataset(detail)
    assert shaped["id"] == {"namespace": NS, "name": NAME}
    assert (shaped["name"], shaped["namespace"], shaped["type"]) == (NAME, NS, "DB_TABLE")
    assert shaped["currentVersion"] == "v2" and shaped["lastModifiedAt"] == T1
    assert shaped["fields"] == [
        {"name": "text", "type": "string", "tags": [], "description": "a line"}
    ]
    assert shaped["facets"] == {"schema": SCHEMA}
    assert (shaped["sourceName"], shaped["description"], shaped["deleted"]) == (
        "lake",
        "tokens",
        False,
    )
    assert shaped["nodeId"] == f"dataset:{NS}:{NAME}"


def test_dataset_without_versions() -> None:
    shaped = shapes.dataset(
        DatasetDetail(node("dataset:demo/web", "Dataset", "demo", name="web"), None)
    )
    assert (shaped["currentVersion"], shaped["fields"], shaped["sourceName"]) == (None, [], "demo")


@pytest.mark.parametrize(
    ("status", "state"),
    [
        ("running", "RUNNING"),
        ("completed", "COMPLETED"),
        ("failed", "FAILED"),
        ("aborted", "ABORTED"),
        (None, "NEW"),
    ],
)
def test_run_states_as_marquez_spells_them(status: str | None, state: str) -> None:
    assert shapes.run(RunDetail(ol_run(status), None, (), ()))["state"] == state


def test_run_shape_with_versions_and_duration() -> None:
    inputs = (VersionRef(ol_version("v1", T0), ol_dataset(), {"role": "input"}),)
    outputs = (VersionRef(ol_version("v2", T1), ol_dataset()),)
    shaped = shapes.run(RunDetail(ol_run("completed"), ol_job(), inputs, outputs))
    assert shaped["id"] == "3f1c0e1e-0000-4000-8000-000000000001"
    assert (shaped["startedAt"], shaped["endedAt"], shaped["durationMs"]) == (T0, T1, 1500)
    assert shaped["jobVersion"] == {
        "namespace": "pipelines",
        "name": "prep/step:1",
        "version": None,
    }
    assert shaped["inputDatasetVersions"] == [
        {"datasetVersionId": {"namespace": NS, "name": NAME, "version": "v1"}, "facets": {}}
    ]
    assert [v["datasetVersionId"]["version"] for v in shaped["outputDatasetVersions"]] == ["v2"]


def test_run_args_are_a_native_runs_params_as_text() -> None:
    run = node("run:r1", "Run", params_json=encode_json({"lr": 0.1, "opt": "adam"}))
    assert shapes.run(RunDetail(run, None, (), ()))["args"] == {"lr": "0.1", "opt": "adam"}


def test_job_shape_takes_inputs_and_outputs_of_its_latest_run() -> None:
    read = node("dataset:lake/raw", "Dataset", ol_namespace="pg://db", ol_name="public.raw")
    latest = RunDetail(
        ol_run("running"), ol_job(), (), (VersionRef(ol_version("v2", T1), ol_dataset()),), (read,)
    )
    shaped = shapes.job(JobDetail(ol_job(), latest))
    assert shaped["id"] == {"namespace": "pipelines", "name": "prep/step:1"}
    assert shaped["inputs"] == [{"namespace": "pg://db", "name": "public.raw"}]
    assert shaped["outputs"] == [{"namespace": NS, "name": NAME}]
    assert shaped["latestRun"]["state"] == "RUNNING"
    assert shapes.job(JobDetail(ol_job(), None))["latestRun"] is None


def test_version_shape_names_its_creating_run() -> None:
    run = RunDetail(ol_run("completed"), ol_job(), (), ())
    shaped = shapes.dataset_version(VersionDetail(ol_version("v2", T1), ol_dataset(), run))
    assert shaped["id"] == {"namespace": NS, "name": NAME, "version": "v2"}
    assert (shaped["version"], shaped["createdAt"]) == ("v2", T1)
    assert shaped["createdByRun"]["id"] == "3f1c0e1e-0000-4000-8000-000000000001"


def test_lists_and_search_results() -> None:
    found = Slice(items=(NamespaceView(NS, T0, T2, "lake"),), total=3)
    assert shapes.page("namespaces", found, shapes.namespace) == {
        "totalCount": 3,
        "namespaces": [
            {
                "name": NS,
                "createdAt": T0,
                "updatedAt": T2,
                "ownerName": "lake",
                "description": None,
                "isHidden": False,
            }
        ],
    }
    assert shapes.search_result(ol_job()) == {
        "type": "JOB",
        "name": "prep/step:1",
        "namespace": "pipelines",
        "nodeId": "job:pipelines:prep/step:1",
        "updatedAt": T2,
    }


def test_lineage_answers_marquez_ids_in_nodes_and_edges() -> None:
    dataset, version, run = ol_dataset(), ol_version("v2", T1), ol_run("completed")
    edges = (
        EdgeView(version.id, dataset.id, "VERSION_OF"),
        EdgeView(version.id, run.id, "GENERATED_BY"),
        EdgeView(run.id, ol_job().id, "PART_OF"),
    )
    lineage = Lineage(
        root=dataset,
        nodes=(version, run, ol_job()),
        depths={dataset.id: 0, version.id: 1, run.id: 2, ol_job().id: 3},
        edges=edges,
        truncated=False,
    )
    graph = marquez_graph(lineage)["graph"]
    ids = [entry["id"] for entry in graph]
    assert ids == [f"dataset:{NS}:{NAME}", version.id, run.id, "job:pipelines:prep/step:1"]
    root = graph[0]
    assert root["outEdges"] == [{"origin": f"dataset:{NS}:{NAME}", "destination": version.id}]
    assert (root["data"]["namespace"], root["data"]["name"]) == (NS, NAME)
    job = graph[3]
    assert job["outEdges"] == [{"origin": "job:pipelines:prep/step:1", "destination": run.id}]


@pytest.mark.parametrize(
    ("started", "ended", "ms"), [(T0, T2, 3_600_000), (T0, None, None), ("x", T2, None)]
)
def test_duration(started: str, ended: str | None, ms: int | None) -> None:
    assert shapes.duration_ms(started, ended) == ms
