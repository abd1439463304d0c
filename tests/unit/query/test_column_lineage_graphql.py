"""GraphQL `columnLineage` over the in-memory reader: shape, arguments, scope and errors."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from fakes import fake_readers
from query_graphql_fake import FakeRecipes
from test_column_lineage_walk import CLEAN, FEATURES, LEAKY, RAW, SECRET

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.settings import QuerySettings

QUERY = """
query($id: ID!, $field: String, $direction: Direction, $depth: Int) {
  columnLineage(id: $id, field: $field, direction: $direction, depth: $depth) {
    root { id }
    field
    truncated
    columns { dataset { id } field fieldType depth }
    edges {
      input { dataset field }
      output { dataset field }
      transformationDescription
      transformationType
      transformations
    }
  }
}
"""


def run(scope: Scope, **variables: Any) -> Any:
    settings = QuerySettings()
    reader = FakeReader([RAW, CLEAN, FEATURES, SECRET, LEAKY], [])
    context = make_context(settings, fake_readers(reader), FakeRecipes(), scope)
    schema = make_schema(settings)
    return asyncio.run(schema.execute(QUERY, variable_values=variables, context_value=context))


def test_upstream_of_a_field_in_graphql() -> None:
    result = run(Scope(frozenset({"lake"})), id=FEATURES.id, field="uid_hash")
    assert result.errors is None
    answer = result.data["columnLineage"]
    assert (answer["root"]["id"], answer["field"], answer["truncated"]) == (
        FEATURES.id,
        "uid_hash",
        False,
    )
    flow = [(e["input"]["field"], e["output"]["field"]) for e in answer["edges"]]
    assert sorted(flow) == [("uid", "uid_hash"), ("user_id", "uid")]
    columns = {(c["dataset"]["id"], c["field"]): c for c in answer["columns"]}
    assert columns[(RAW.id, "user_id")]["depth"] == 2
    assert columns[(RAW.id, "user_id")]["fieldType"] == "string"
    masked = next(e for e in answer["edges"] if e["output"]["field"] == "uid_hash")
    assert (masked["transformationType"], masked["transformationDescription"]) == (
        "MASKED",
        "sha256(uid)",
    )
    renamed = next(e for e in answer["edges"] if e["output"]["field"] == "uid")
    assert renamed["transformations"][0]["subtype"] == "IDENTITY"


def test_downstream_in_graphql() -> None:
    result = run(Scope.everything(), id=RAW.id, field="user_id", direction="DOWNSTREAM", depth=1)
    outputs = {
        (e["output"]["dataset"], e["output"]["field"])
        for e in result.data["columnLineage"]["edges"]
    }
    assert outputs == {(CLEAN.id, "uid"), (LEAKY.id, "x")}


def test_a_reader_of_another_project_sees_nothing() -> None:
    result = run(Scope(frozenset({"other"})), id=FEATURES.id)
    assert result.data["columnLineage"] is None
    assert result.errors[0].extensions["code"] == "not_found"


def test_malformed_id_and_depth_are_refused() -> None:
    bad_id = run(Scope.everything(), id="not an id")
    assert bad_id.errors[0].extensions["code"] == "invalid_id"
    too_deep = run(Scope.everything(), id=FEATURES.id, depth=21)
    assert too_deep.errors[0].extensions["code"] == "invalid_argument"
