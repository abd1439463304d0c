"""Around a dataset, the Marquez lineage shows the dataset of every dataset version it reaches
(http/marquez_around.py), so what was made from a source is there by its Marquez id."""

from __future__ import annotations

from typing import Any

import pytest
from fake_reader import FakeReader

from provgraph.query.http.marquez_around import around_dataset
from provgraph.query.http.rest import marquez_graph
from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView, Scope
from provgraph.schemas.graph import MARQUEZ_ID

pytestmark = pytest.mark.unit

LAKE = "s3://lake"
SOURCE, MODEL = "dataset:s3-lake/raw", "dataset:s3-lake/clean"
VERSION, RUN = f"{MODEL}@run-r1", "run:r1"


def node(node_id: str, kind: str, **props: Any) -> NodeView:
    project = "s3-lake" if kind != "Run" else "jobs"
    return NodeView(node_id, kind, project, "2024-05-01T12:00:00Z", None, None, False, props)


def marquez(name: str) -> dict[str, str]:
    return {MARQUEZ_ID: f"dataset:{LAKE}:{name}", "ol_namespace": LAKE, "ol_name": name}


READER = FakeReader(
    [
        node(SOURCE, "Dataset", **marquez("raw")),
        node(RUN, "Run"),
        node(VERSION, "DatasetVersion", version="run-r1"),
        node(MODEL, "Dataset", **marquez("clean")),
    ],
    [
        EdgeView(RUN, SOURCE, "READS"),
        EdgeView(VERSION, RUN, "GENERATED_BY"),
        EdgeView(VERSION, MODEL, "VERSION_OF"),
    ],
)


def lineage_of(root: str, depth: int = 2) -> Lineage:
    found = READER.lineage(root, Scope.everything(), direction=Direction.BOTH, depth=depth)
    assert found is not None
    return found


def test_downstream_of_a_source_the_walk_reaches_versions_but_not_their_datasets() -> None:
    found = lineage_of(SOURCE)
    assert dict(found.depths) == {SOURCE: 0, RUN: 1, VERSION: 2}


def test_the_dataset_of_each_version_is_added_one_step_past_it_with_version_of() -> None:
    around = around_dataset(lineage_of(SOURCE), READER, Scope.everything())
    assert dict(around.depths) == {SOURCE: 0, RUN: 1, VERSION: 2, MODEL: 3}
    assert EdgeView(VERSION, MODEL, "VERSION_OF") in around.edges
    graph = {n["id"]: n for n in marquez_graph(around)["graph"]}
    clean = f"dataset:{LAKE}:clean"
    assert list(graph) == [f"dataset:{LAKE}:raw", RUN, VERSION, clean]
    # VERSION_OF as every Marquez answer shows it: the dataset flows into its version.
    assert graph[clean]["outEdges"] == [{"origin": clean, "destination": VERSION}]


def test_a_dataset_already_in_the_answer_is_not_read_again() -> None:
    found = lineage_of(VERSION, depth=1)
    assert MODEL in found.depths
    before = READER.calls["datasets_by_key"]
    assert around_dataset(found, READER, Scope.everything()) is found
    assert READER.calls["datasets_by_key"] == before


def test_a_dataset_the_caller_may_not_read_is_not_added() -> None:
    only_runs = Scope(frozenset({"jobs"}))
    found = READER.lineage(RUN, only_runs, direction=Direction.BOTH, depth=2)
    assert found is not None and dict(found.depths) == {RUN: 0}
    wider = Lineage(found.root, (node(VERSION, "DatasetVersion"),), {RUN: 0, VERSION: 1}, (), False)
    assert around_dataset(wider, READER, only_runs).nodes == wider.nodes
