"""Column lineage from `columnLineage` facets: the facet read, and the walk over the fake reader
(the same pure walk `GraphReader` runs, with the scope applied where its Cypher applies it)."""

from __future__ import annotations

from typing import Any

import pytest
from fake_reader import FakeReader

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read import columns
from provgraph.query.read.model import (
    ColumnKey,
    ColumnLineage,
    Direction,
    EdgeView,
    NodeView,
    Scope,
)
from provgraph.schemas.graph import MARQUEZ_ID
from provgraph.schemas.storage import encode_json, json_key

NS = "s3://lake"
P, Q = "lake", "other"


def _inputs(*fields: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "inputFields": [
            {"namespace": NS, "name": name, "field": field, **extra} for name, field in fields
        ]
    }


def dataset(
    name: str, facet: dict[str, Any] | None = None, project: str = P, schema: Any = None
) -> NodeView:
    props: dict[str, Any] = {
        "name": name,
        "ol_namespace": NS,
        "ol_name": name,
        MARQUEZ_ID: columns.marquez_dataset_id(NS, name),
    }
    if facet is not None:
        props[json_key("column_lineage")] = encode_json({"fields": facet})
    if schema is not None:
        props[json_key("schema")] = encode_json({"fields": schema})
    return NodeView(
        id=f"dataset:{project}/{name}",
        type="Dataset",
        project=project,
        first_seen_at="2026-01-01T00:00:00.000000Z",
        last_event_at=None,
        deleted_at=None,
        placeholder=False,
        props=props,
    )


RAW = dataset("raw", schema=[{"name": "user_id", "type": "string"}])
CLEAN = dataset(
    "clean",
    {
        "uid": _inputs(
            ("raw", "user_id"),
            transformations=[{"type": "DIRECT", "subtype": "IDENTITY", "description": "renamed"}],
        ),
        "day": _inputs(("raw", "ts")),
    },
)
FEATURES = dataset(
    "features",
    {
        "uid_hash": {
            **_inputs(("clean", "uid")),
            "transformationDescription": "sha256(uid)",
            "transformationType": "MASKED",
        },
        "n_days": _inputs(("clean", "day")),
    },
)
SECRET = dataset("secret", project=Q)
LEAKY = dataset("leaky", {"x": _inputs(("secret", "s"), ("raw", "user_id"))})


def key(view: NodeView, field: str) -> ColumnKey:
    return ColumnKey(view.id, field)


@pytest.fixture()
def reader() -> FakeReader:
    return FakeReader([RAW, CLEAN, FEATURES, SECRET, LEAKY], [])


def _ask(reader: FakeReader, root: NodeView, **kw: Any) -> ColumnLineage:
    found = reader.column_lineage(root.id, kw.pop("scope", Scope(frozenset({P}))), **kw)
    assert found is not None
    return found


def _edges(found: ColumnLineage) -> set[tuple[ColumnKey, ColumnKey]]:
    return {(e.input, e.output) for e in found.edges}


def test_facet_inputs_read_every_pair_and_the_transformation() -> None:
    facet = {
        "fields": {
            "b": {"inputFields": [{"namespace": NS, "name": "t", "field": "x"}, {"bad": 1}]},
            "a": {
                "inputFields": [
                    {
                        "namespace": NS,
                        "name": "t",
                        "field": "y",
                        "transformations": [{"type": "INDIRECT", "description": "filter"}],
                    }
                ]
            },
        }
    }
    found = columns.facet_inputs(facet)
    assert [(i.output, i.field) for i in found] == [("a", "y"), ("b", "x")]
    assert (found[0].transformation_type, found[0].transformation_description) == (
        "INDIRECT",
        "filter",
    )
    assert found[0].dataset == f"dataset:{NS}:t"


@pytest.mark.parametrize("facet", [None, "text", {"fields": []}, {"fields": {"a": 3}}])
def test_malformed_facets_have_no_inputs(facet: Any) -> None:
    assert columns.facet_inputs(facet) == ()


def test_upstream_of_a_final_column_reaches_the_raw_column_through_the_middle_one(
    reader: FakeReader,
) -> None:
    found = _ask(reader, FEATURES, field="uid_hash", depth=5)
    assert _edges(found) == {
        (key(CLEAN, "uid"), key(FEATURES, "uid_hash")),
        (key(RAW, "user_id"), key(CLEAN, "uid")),
    }
    depths = {n.key: n.depth for n in found.nodes}
    assert depths == {key(FEATURES, "uid_hash"): 0, key(CLEAN, "uid"): 1, key(RAW, "user_id"): 2}
    types = {n.key: n.field_type for n in found.nodes}
    assert types[key(RAW, "user_id")] == "string"
    by_output = {e.output: e for e in found.edges}
    assert by_output[key(FEATURES, "uid_hash")].transformation_type == "MASKED"
    assert by_output[key(CLEAN, "uid")].transformation_description == "renamed"
    assert by_output[key(CLEAN, "uid")].transformations[0]["subtype"] == "IDENTITY"
    assert found.truncated is False


def test_depth_one_stops_at_the_direct_inputs(reader: FakeReader) -> None:
    found = _ask(reader, FEATURES, field="uid_hash", depth=1)
    assert _edges(found) == {(key(CLEAN, "uid"), key(FEATURES, "uid_hash"))}


def test_a_dataset_without_a_field_walks_every_output_column(reader: FakeReader) -> None:
    found = _ask(reader, FEATURES, depth=2)
    assert (key(RAW, "ts"), key(CLEAN, "day")) in _edges(found)
    assert (key(RAW, "user_id"), key(CLEAN, "uid")) in _edges(found)
    assert len(found.edges) == 4


def test_downstream_of_a_raw_column_reaches_the_final_one(reader: FakeReader) -> None:
    found = _ask(reader, RAW, field="user_id", direction=Direction.DOWNSTREAM, depth=5)
    assert _edges(found) == {
        (key(RAW, "user_id"), key(CLEAN, "uid")),
        (key(CLEAN, "uid"), key(FEATURES, "uid_hash")),
        (key(RAW, "user_id"), key(LEAKY, "x")),
    }
    assert key(CLEAN, "day") not in {n.key for n in found.nodes}  # fed by `ts`, not `user_id`


def test_both_directions_around_the_middle_column(reader: FakeReader) -> None:
    found = _ask(reader, CLEAN, field="uid", direction=Direction.BOTH)
    assert _edges(found) == {
        (key(RAW, "user_id"), key(CLEAN, "uid")),
        (key(CLEAN, "uid"), key(FEATURES, "uid_hash")),
    }


def test_an_unreadable_input_is_never_reached(reader: FakeReader) -> None:
    found = _ask(reader, LEAKY, field="x")
    assert {n.key.dataset for n in found.nodes} == {LEAKY.id, RAW.id}
    everything = _ask(reader, LEAKY, field="x", scope=Scope.everything())
    assert key(SECRET, "s") in {n.key for n in everything.nodes}


def test_another_project_sees_nothing(reader: FakeReader) -> None:
    assert reader.column_lineage(FEATURES.id, Scope(frozenset({Q}))) is None


def test_the_column_cap_truncates(reader: FakeReader) -> None:
    found = _ask(reader, FEATURES, field="uid_hash", limit=2)
    assert found.truncated is True
    assert len(found.nodes) == 2
    assert _edges(found) == {(key(CLEAN, "uid"), key(FEATURES, "uid_hash"))}


def test_a_version_answers_for_its_dataset() -> None:
    version = NodeView(
        id=f"{FEATURES.id}@v1",
        type="DatasetVersion",
        project=P,
        first_seen_at="2026-01-01T00:00:00.000000Z",
        last_event_at=None,
        deleted_at=None,
        placeholder=False,
    )
    reader = FakeReader(
        [RAW, CLEAN, FEATURES, version], [EdgeView(version.id, FEATURES.id, "VERSION_OF")]
    )
    found = _ask(reader, version, field="uid_hash", depth=1)
    assert found.root.id == FEATURES.id
    assert len(found.edges) == 1


def test_a_run_is_not_a_start() -> None:
    run = NodeView("run:abc", "Run", P, None, None, None, False)
    with pytest.raises(InvalidArgumentError):
        columns.column_root(run, None)


def test_datasets_by_key_finds_marquez_and_provgraph_ids(reader: FakeReader) -> None:
    scope = Scope(frozenset({P}))
    keys = [f"dataset:{NS}:clean", RAW.id, f"dataset:{NS}:secret", "dataset:nowhere:x"]
    found = reader.datasets_by_key(keys, scope)
    assert [v.id if v else None for v in found] == [CLEAN.id, RAW.id, None, None]
