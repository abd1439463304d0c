"""One-pass plans shared across requests (execution.SharedPlans): a known text's list plans are
made once, never for an operation with directives (its fields may follow its variables), and
the store stays within its bound."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from fakes import fake_readers
from query_graphql_fake import FakeRecipes, story
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from provgraph.query.graphql.execution import LeafExecution, SharedPlans
from provgraph.query.graphql.schema import ProvenanceSchema, make_context, make_schema
from provgraph.query.settings import QuerySettings

LINEAGE = """query($id: ID!) { lineage(id: $id, direction: DOWNSTREAM, depth: 5) {
  root { id } nodes { __typename id type ... on Run { name status } } edges { from to type } } }"""
INCLUDED = """query($id: ID!, $t: Boolean!) { lineage(id: $id, direction: DOWNSTREAM) {
  nodes { id type @include(if: $t) } } }"""
# The same, the fields in named fragments: the directive in one of them.
FRAGMENTS = """query($id: ID!, $t: Boolean!) { lineage(id: $id, direction: DOWNSTREAM) {
  nodes { ...ids } edges { ...ends } } }
  fragment ids on Node { id ...typed } fragment typed on Node { type @include(if: $t) }
  fragment ends on Edge { from to }"""


class Planning(LeafExecution):
    """Counts the plans made (not the ones found)."""

    made: ClassVar[list[Any]] = []

    def _make_plan(self, *args: Any) -> Any:
        plan = super()._make_plan(*args)
        Planning.made.append(plan)
        return plan


def _schema(executor: type = Planning, **overrides: Any) -> tuple[ProvenanceSchema, Any]:
    settings = QuerySettings(**overrides)
    schema = make_schema(settings)
    schema.execution_context_class = executor
    return schema, settings


def _data(schema: ProvenanceSchema, settings: Any, query: str, **variables: Any) -> Any:
    context = make_context(settings, fake_readers(story()), FakeRecipes())
    result = schema.execute_here(query, variable_values=variables, context_value=context)
    assert result.errors is None, result.errors
    return result.data


def test_a_known_texts_plans_are_made_once_across_requests() -> None:
    schema, settings = _schema()
    Planning.made = []
    answers = [_data(schema, settings, LINEAGE, id="dataset:p/web@v1") for _ in range(5)]
    made = len(Planning.made)
    assert made >= 2 and all(plan is not None for plan in Planning.made)  # nodes and edges
    assert _data(schema, settings, LINEAGE, id="dataset:p/web@v2") is not None
    assert len(Planning.made) == made, "the first request made every plan"
    standard, _ = _schema(StrawberryGraphQLCoreExecutionContext)
    expected = _data(standard, settings, LINEAGE, id="dataset:p/web@v1")
    assert [json.dumps(a) for a in answers] == [json.dumps(expected)] * 5
    assert len(answers[0]["lineage"]["nodes"]) >= 4


def test_named_fragments_without_directives_share_their_plans() -> None:
    schema, settings = _schema()
    query = FRAGMENTS.replace(" @include(if: $t)", "").replace(", $t: Boolean!", "")
    Planning.made = []
    first = _data(schema, settings, query, id="dataset:p/web@v1")
    made = len(Planning.made)
    assert made >= 2 and all(plan is not None for plan in Planning.made)
    assert _data(schema, settings, query, id="dataset:p/web@v1") == first
    assert len(Planning.made) == made
    assert all(set(node) == {"id", "type"} for node in first["lineage"]["nodes"])


@pytest.mark.parametrize("query", [INCLUDED, FRAGMENTS], ids=["inline", "fragments"])
def test_an_operation_with_directives_plans_each_request_by_its_variables(query: str) -> None:
    schema, settings = _schema()
    Planning.made = []
    made = []
    for include in (True, False, True, False):
        nodes = _data(schema, settings, query, id="dataset:p/web@v1", t=include)["lineage"]
        assert nodes["nodes"] and all(("type" in n) is include for n in nodes["nodes"])
        made.append(len(Planning.made))
    # One plan per node class in the list, made afresh by every request.
    assert made[0] >= 2 and made == [made[0] * n for n in (1, 2, 3, 4)]


def test_shared_plans_stay_within_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SharedPlans, "SIZE", 3)
    schema, settings = _schema()
    standard, _ = _schema(StrawberryGraphQLCoreExecutionContext)
    shared = None
    for i in range(15):  # 15 texts, each with its own nodes list: five times the bound
        query = LINEAGE.replace("nodes {", f"n{i}: nodes {{")
        got = _data(schema, settings, query, id="dataset:p/web@v1")
        assert got == _data(standard, settings, query, id="dataset:p/web@v1")
        shared = SharedPlans.of(schema._schema)
        assert 0 < len(shared._plans) <= 3 and len(shared._plain) <= 3
    assert shared is not None
