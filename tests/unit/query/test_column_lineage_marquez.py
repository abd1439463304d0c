"""Marquez's column-lineage shape and its node ids (pure parts of http/marquez_columns.py)."""

from __future__ import annotations

import pytest
from fake_reader import FakeReader
from test_column_lineage_walk import CLEAN, FEATURES, LEAKY, RAW, SECRET

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.marquez_columns import marquez_column_graph, root_candidates
from provgraph.query.read.model import Direction, Scope


def test_a_dataset_id_is_read_whole_first_then_with_its_last_segment_as_field() -> None:
    assert root_candidates("dataset:s3://lake:clean:uid") == [
        ("dataset:s3://lake:clean:uid", None),
        ("dataset:s3://lake:clean", "uid"),
    ]
    assert root_candidates("datasetField:s3://lake:clean:uid") == [
        ("dataset:s3://lake:clean", "uid")
    ]
    assert root_candidates("dataset:lake/clean") == [("dataset:lake/clean", None)]


@pytest.mark.parametrize("bad", ["job:ns:name", "dataset:", "datasetField:nofield", "clean"])
def test_other_node_ids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidArgumentError):
        root_candidates(bad)


def test_marquez_graph_of_a_field_upstream() -> None:
    reader = FakeReader([RAW, CLEAN, FEATURES, SECRET, LEAKY], [])
    found = reader.column_lineage(FEATURES.id, Scope.everything(), field="uid_hash")
    assert found is not None
    graph = {node["id"]: node for node in marquez_column_graph(found)["graph"]}
    final, middle, raw = (
        "datasetField:s3://lake:features:uid_hash",
        "datasetField:s3://lake:clean:uid",
        "datasetField:s3://lake:raw:user_id",
    )
    assert list(graph) == [final, middle, raw]
    assert {node["type"] for node in graph.values()} == {"DATASET_FIELD"}
    # Marquez's column edges: inEdges point from the node to its inputs.
    assert graph[final]["inEdges"] == [{"origin": final, "destination": middle}]
    assert graph[middle]["outEdges"] == [{"origin": middle, "destination": final}]
    assert graph[middle]["inEdges"] == [{"origin": middle, "destination": raw}]
    data = graph[final]["data"]
    assert (data["namespace"], data["dataset"], data["field"]) == (
        "s3://lake",
        "features",
        "uid_hash",
    )
    assert data["inputFields"] == [
        {
            "namespace": "s3://lake",
            "dataset": "clean",
            "datasetVersion": None,
            "field": "uid",
            "transformationDescription": "sha256(uid)",
            "transformationType": "MASKED",
        }
    ]
    assert (graph[raw]["data"]["fieldType"], graph[raw]["data"]["inputFields"]) == ("string", [])


def test_marquez_graph_with_downstream_has_both_sides() -> None:
    reader = FakeReader([RAW, CLEAN, FEATURES], [])
    found = reader.column_lineage(
        CLEAN.id, Scope.everything(), field="uid", direction=Direction.BOTH
    )
    assert found is not None
    ids = {node["id"] for node in marquez_column_graph(found)["graph"]}
    assert ids == {
        "datasetField:s3://lake:clean:uid",
        "datasetField:s3://lake:raw:user_id",
        "datasetField:s3://lake:features:uid_hash",
    }
