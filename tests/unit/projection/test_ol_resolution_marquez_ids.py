"""What the OpenLineage fold stores for the query side: Marquez ids of datasets and jobs, and
the columnLineage facet of outputs."""

from __future__ import annotations

import json

import pytest
from support.ol_chain import Chain

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection.openlineage import MAX_MARQUEZ_ID_BYTES, marquez_id
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas.graph import MARQUEZ_ID, Label, schema_statements

pytestmark = pytest.mark.unit

NAMES = NamespaceMap({"s3://lake": "llm", "pipelines": "llm"})
LINEAGE = {
    "_producer": "https://t/1",
    "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
    "fields": {
        "title": {"inputFields": [{"namespace": "s3://lake", "name": "raw", "field": "headline"}]}
    },
}


def _graph() -> MemoryGraph:
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": "https://t/1",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f"},
        "job": {"namespace": "pipelines", "name": "prep/web"},
        "inputs": [{"namespace": "s3://lake", "name": "raw"}],
        "outputs": [
            {"namespace": "s3://lake", "name": "/clean", "facets": {"columnLineage": LINEAGE}}
        ],
    }
    return MemoryGraph().fold([wrap(event, NAMES)])


def test_datasets_and_jobs_carry_their_marquez_id_versions_do_not() -> None:
    graph = _graph()
    clean = next(k for k in graph.nodes if k.startswith("dataset:llm/clean") and "@" not in k)
    assert graph.nodes[clean][1][MARQUEZ_ID] == "dataset:s3://lake:/clean"
    assert graph.nodes["dataset:llm/raw"][1][MARQUEZ_ID] == "dataset:s3://lake:raw"
    job = next(k for k in graph.nodes if graph.nodes[k][0] is Label.JOB)
    assert graph.nodes[job][1][MARQUEZ_ID] == "job:pipelines:prep/web"
    versions = [p for label, p in graph.nodes.values() if label is Label.DATASET_VERSION]
    assert versions and all(MARQUEZ_ID not in p for p in versions)


def test_the_column_lineage_of_an_output_is_kept_on_its_dataset_and_version() -> None:
    graph = _graph()
    kept = [
        json.loads(p["column_lineage_json"])
        for label, p in graph.nodes.values()
        if label in (Label.DATASET, Label.DATASET_VERSION) and "column_lineage_json" in p
    ]
    assert kept == [LINEAGE, LINEAGE]


def test_a_marquez_id_too_long_to_index_is_left_out_and_the_ids_are_indexed() -> None:
    assert marquez_id("dataset", "ns", "x" * MAX_MARQUEZ_ID_BYTES) is None
    assert marquez_id("dataset", "ns", "x") == "dataset:ns:x"
    statements = schema_statements()
    for label in ("Dataset", "Job"):
        assert any(f"(n:{label}) ON (n.marquez_id)" in s for s in statements)


def test_the_chain_marks_no_unversioned_node() -> None:
    graph = MemoryGraph().fold(Chain("llm").events())
    assert not [k for k in graph.nodes if "@unversioned" in k]
    assert graph.nodes["dataset:llm/raw"][1]["placeholder"] is True  # raw: versions only
