"""`Run.metricSeries` through the GraphQL schema, over a fake read session answering records
shaped as `cypher.RUN_METRIC_SERIES` answers them (stored properties as [key, value] pairs)."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from query_graphql_fake import view

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read import cypher
from provgraph.query.read.model import EdgeView, Scope
from provgraph.query.settings import QuerySettings
from provgraph.schemas.storage import series_point

A, B, X = "run:a", "run:b", "experiment:p/x"


def stored(name: str, *points: tuple[int, float]) -> list[list[Any]]:
    props: dict[str, Any] = {"id": f"{A}#{name}", "run": A, "name": name, "project": "p"}
    for step, value in points:
        props.update(series_point(step, value))
    return [[key, value] for key, value in props.items()]


RECORDS = {
    # Stored in no particular order: the answer sorts series by name and points by step.
    A: [stored("val/loss", (1000, 2.7), (500, 3.1)), stored("train/loss", (1010, 2.9), (0, 10.8))],
    B: [],
}


class FakeSession:
    """Answers the series read of the asked runs; keeps every call's parameters."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def run(self, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        assert text == cypher.RUN_METRIC_SERIES
        self.calls.append(params)
        names = params["names"]
        return [
            {
                "id": i,
                "series": [s for s in RECORDS[i] if names is None or dict(s)["name"] in names],
            }
            for i in params["ids"]
        ]


class FakeRecipes:
    def __init__(self) -> None:
        self.session = FakeSession()


def execute(query: str, scope: Scope | None = None) -> tuple[Any, FakeSession]:
    nodes = [view(X, "Experiment", key="x"), view(A, "Run", name="a"), view(B, "Run", name="b")]
    edges = [EdgeView(A, X, "PART_OF"), EdgeView(B, X, "PART_OF")]
    recipes = FakeRecipes()
    settings = QuerySettings()
    context = make_context(settings, FakeReader(nodes, edges), recipes, scope)  # type: ignore[arg-type]
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    return result, recipes.session


def test_every_run_of_an_answer_is_read_in_one_batch_by_name_and_step() -> None:
    query = f"""{{ node(id: "{X}") {{ ... on Experiment {{
                   runs {{ id metricSeries {{ name points {{ step value }} }} }} }} }} }}"""
    result, session = execute(query, Scope(frozenset({"p"})))
    assert result.errors is None, result.errors
    (call,) = session.calls
    assert sorted(call["ids"]) == [A, B]
    assert (call["names"], call["all"], call["projects"], call["as_of"]) == (
        None,
        False,
        ["p"],
        None,
    )
    by_id = {run["id"]: run["metricSeries"] for run in result.data["node"]["runs"]}
    assert by_id == {
        A: [
            {"name": "train/loss", "points": [{"step": 0, "value": 10.8},
                                              {"step": 1010, "value": 2.9}]},
            {"name": "val/loss", "points": [{"step": 500, "value": 3.1},
                                            {"step": 1000, "value": 2.7}]},
        ],
        B: [],
    }  # fmt: skip


def test_names_and_as_of_reach_the_read() -> None:
    query = f"""{{ node(id: "{A}", asOf: "2026-03-07T00:00:00Z") {{
                   ... on Run {{ metricSeries(names: ["val/loss", "nope"]) {{ name }} }} }} }}"""
    result, session = execute(query)
    assert result.errors is None, result.errors
    (call,) = session.calls
    assert (call["names"], call["as_of"]) == (["val/loss", "nope"], "2026-03-07T00:00:00.000000Z")
    assert result.data["node"]["metricSeries"] == [{"name": "val/loss"}]


def test_the_series_read_applies_the_scope_to_the_run_and_never_answers_version_stamps() -> None:
    text = cypher.RUN_METRIC_SERIES
    assert cypher.visible("r") in text
    assert "MATCH (s:MetricSeries {run: id})" in text
    assert "WHERE NOT k STARTS WITH '_v'" in text
