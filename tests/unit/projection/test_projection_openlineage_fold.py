"""The fold of OpenLineage events: graph shape, kept facets, convergence in any order."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from provgraph.ingest.openlineage import NamespaceMap, spec_errors, wrap
from provgraph.ingest.openlineage.wrap import WrapError
from provgraph.ingest.projection import project_event
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, parse_event
from provgraph.schemas.events.openlineage import namespace_slug, ol_name, ol_version

pytestmark = pytest.mark.unit

P = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"
RUN = "3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f"
PARENT = "9b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d"
NAMES = NamespaceMap({"s3://corpora": "llm", "pipelines": "llm"})
ME = f"run:{RUN}"
JOB = "job:llm/prep.web"


def facet(kind: str, **fields: Any) -> dict[str, Any]:
    url = f"https://openlineage.io/spec/facets/1-0-0/{kind}.json#/$defs/{kind}"
    return {"_producer": P, "_schemaURL": url, **fields}


def ds(name: str, version: str | None = None, **facets: Any) -> dict[str, Any]:
    if version:
        facets["version"] = facet("DatasetVersionDatasetFacet", datasetVersion=version)
    return {"namespace": "s3://corpora", "name": name, "facets": facets}


def run_event(state: str, minute: int, **parts: Any) -> dict[str, Any]:
    run_facets = parts.pop("run_facets", {})
    return {
        "eventType": state,
        "eventTime": f"2024-05-01T12:{minute:02d}:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": RUN, "facets": run_facets},
        "job": {"namespace": "pipelines", "name": "prep.web", "facets": parts.pop("job", {})},
        **parts,
    }


def lifecycle() -> list[Event]:
    error = facet("ErrorMessageRunFacet", message="disk full", programmingLanguage="python")
    parent = facet(
        "ParentRunFacet",
        run={"runId": PARENT},
        job={"namespace": "pipelines", "name": "nightly"},
    )
    events = [
        run_event(
            "START",
            0,
            inputs=[ds("raw", "r7")],
            outputs=[ds("clean", "v1")],
            run_facets={"parent": parent},
            job={"sql": facet("SQLJobFacet", query="SELECT 1")},
        ),
        run_event("RUNNING", 5, run_facets={"errorMessage": error}),
        run_event("COMPLETE", 9, outputs=[ds("stats")]),
    ]
    for event in events:
        assert spec_errors(event) == []
    return [wrap(e, NAMES) for e in events]


def fold(events: list[Event]) -> MemoryGraph:
    return MemoryGraph().fold(events)


def edges(graph: MemoryGraph) -> set[tuple[str, str, str]]:
    return {(src, rel, dst) for (src, rel, dst, _) in graph.edges}


def props(graph: MemoryGraph, node: str) -> dict[str, Any]:
    return graph.nodes[node][1]


def test_a_run_is_part_of_its_job_and_links_inputs_outputs_and_parent() -> None:
    graph = fold(lifecycle())
    assert graph.nodes[JOB][0].value == "Job"
    assert {
        (ME, "PART_OF", JOB),
        (ME, "USED", "dataset:llm/raw@r7"),
        ("dataset:llm/clean@v1", "GENERATED_BY", ME),
        ("dataset:llm/clean@v1", "VERSION_OF", "dataset:llm/clean"),
        (ME, "CHILD_OF", f"run:{PARENT}"),
        (f"run:{PARENT}", "PART_OF", "job:llm/nightly"),
    } <= edges(graph)
    used = [p for (s, r, _, _), p in graph.edges.items() if s == ME and r == "USED"]
    assert used == [{"role": "input", "first_seen_at": "2024-05-01T12:00:00.000000Z"}]


def test_an_output_without_a_version_facet_is_versioned_by_the_run() -> None:
    graph = fold(lifecycle())
    assert (f"dataset:llm/stats@run-{RUN}", "GENERATED_BY", ME) in edges(graph)


def test_every_order_converges_to_the_same_graph_and_a_completed_run() -> None:
    events = lifecycle()
    digests = {fold(list(p)).canonical().digest() for p in itertools.permutations(events)}
    assert len(digests) == 1
    run = props(fold(events), ME)
    assert run["status"] == "completed"
    assert run["started_at"] == "2024-05-01T12:00:00.000000Z"
    assert run["ended_at"] == "2024-05-01T12:09:00.000000Z"


def test_complete_without_start_is_a_completed_run_and_start_only_io_is_kept() -> None:
    start, _, complete = lifecycle()
    graph = fold([complete])
    assert props(graph, ME)["status"] == "completed"
    assert "started_at" not in props(graph, ME)
    both = fold([complete, start])
    assert (ME, "USED", "dataset:llm/raw@r7") in edges(both)
    assert ("dataset:llm/clean@v1", "GENERATED_BY", ME) in edges(both)


@pytest.mark.parametrize(
    ("states", "status"), [(("START", "FAIL"), "failed"), (("ABORT",), "aborted")]
)
def test_status_moves_forward_only(states: tuple[str, ...], status: str) -> None:
    events = [wrap(run_event(s, i), NAMES) for i, s in enumerate(states)]
    assert props(fold(events[::-1]), ME)["status"] == status


def test_kept_facets_are_properties() -> None:
    schema = facet("SchemaDatasetFacet", fields=[{"name": "text", "type": "string"}])
    source = facet("DatasourceDatasetFacet", name="corpora", uri="s3://corpora")
    doc = facet("DocumentationDatasetFacet", description="clean pages")
    nominal = facet("NominalTimeRunFacet", nominalStartTime="2024-05-01T00:00:00Z")
    event = run_event(
        "START",
        0,
        outputs=[ds("clean", "v1", schema=schema, dataSource=source, documentation=doc)],
        run_facets={"nominalTime": nominal},
    )
    graph = fold([wrap(event, NAMES), *lifecycle()[1:2]])
    version = props(graph, "dataset:llm/clean@v1")
    assert version["schema_fields"] == ["text"]
    assert version["datasource_uri"] == "s3://corpora"
    assert version["description"] == "clean pages"
    assert '"fields"' in version["schema_json"]
    run = props(graph, ME)
    assert run["nominal_start_time"] == "2024-05-01T00:00:00Z"
    assert run["error_message"] == "disk full"
    assert "SELECT 1" in props(fold(lifecycle()), JOB)["sql_json"]


def test_a_resend_is_a_duplicate_and_the_wrapped_event_round_trips() -> None:
    first, again = wrap(run_event("START", 0), NAMES), wrap(run_event("START", 0), NAMES)
    assert first.event_id == again.event_id
    assert parse_event(first.to_json_bytes()) == first
    assert MemoryGraph().fold([first]).apply(project_event(again)) is False


def test_dataset_and_job_events() -> None:
    dataset_event = {
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": ds("clean", "v2"),
    }
    job_event = {
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": "pipelines", "name": "prep.web"},
        "inputs": [ds("raw")],
    }
    graph = fold([wrap(dataset_event, NAMES), wrap(job_event, NAMES)])
    assert ("dataset:llm/clean@v2", "VERSION_OF", "dataset:llm/clean") in edges(graph)
    assert props(graph, JOB)["input_datasets"] == ["dataset:llm/raw"]


def test_naming_rule() -> None:
    assert namespace_slug("postgres://db.example.com:5432") == "postgres-db-example-com-5432"
    assert ol_name("public.orders") == "public.orders"
    assert ol_name("/data/x.csv").startswith("data-x.csv-")
    assert ol_name("/data/x.csv") != ol_name("data/x.csv")
    assert ol_version("2024-05-01T00:00:00Z").startswith("2024-05-01T00-00-00Z-")
    assert NAMES.project("s3://corpora") == "llm"


def test_a_spec_valid_event_that_cannot_be_mapped_is_refused() -> None:
    event = run_event("START", 0)
    event["eventTime"] = "2024-05-01T12:00:00"
    with pytest.raises(WrapError, match="no timezone"):
        wrap(event, NAMES)
