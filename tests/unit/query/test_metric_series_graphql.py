"""`Run.metricSeries` through the GraphQL schema, over the in-memory `SeriesReads` (on the
graph folded from the events that logged RECORDS); and the series as stored (properties as
[key, value] pairs, as `series_reads.RUN_METRIC_SERIES` answers them) read as views."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fake_reader import FakeReader
from fakes import FakeSeriesReads, fake_readers
from query_graphql_fake import T0, view
from support.stories import story_event

from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import EdgeView, Scope
from provgraph.query.read.series_reads import RUN_METRIC_SERIES, series_views
from provgraph.query.settings import QuerySettings
from provgraph.schemas.storage import SeriesPoint, series_bucket, series_lists, series_points

A, B, X = "run:a", "run:b", "experiment:p/x"


def stored(name: str, *points: tuple[int, float]) -> list[list[Any]]:
    props: dict[str, Any] = {"id": f"{A}#{name}", "run": A, "name": name, "project": "p"}
    props.update(series_lists({series_bucket(s): SeriesPoint(s, v, "v") for s, v in points}))
    return [[key, value] for key, value in props.items() if not key.startswith("_v")]


RECORDS = {
    # Stored in no particular order: the answer sorts series by name and points by step.
    A: [stored("val/loss", (1000, 2.7), (500, 3.1)), stored("train/loss", (1010, 2.9), (0, 10.8))],
    B: [],
}
NODES = [view(X, "Experiment", key="x"), view(A, "Run", name="a"), view(B, "Run", name="b")]


def graph() -> MemoryGraph:
    """Runs a and b of experiment x, and the series of RECORDS, folded as the writer folds
    the events that logged them."""
    started = datetime.fromisoformat(T0)
    events = [
        story_event("p", "run.started", {"run_id": run[4:], "experiment": X}, started)
        for run in RECORDS
    ]
    for run, found in RECORDS.items():
        for props in map(dict, found):
            points = [
                {"name": props["name"], "step": s, "value": v} for s, v in series_points(props)
            ]
            logged = {"run_id": run[4:], "points": points}
            events.append(story_event("p", "run.metrics.logged", logged, started))
    return MemoryGraph().fold(events)


def execute(query: str, scope: Scope | None = None) -> tuple[Any, FakeSeriesReads]:
    edges = [EdgeView(A, X, "PART_OF"), EdgeView(B, X, "PART_OF")]
    reads = FakeSeriesReads(graph())
    settings = QuerySettings()
    readers = fake_readers(FakeReader(NODES, edges), series=reads)
    context = make_context(settings, readers, scope=scope)
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    return result, reads


def test_every_run_of_an_answer_is_read_in_one_batch_by_name_and_step() -> None:
    query = f"""{{ node(id: "{X}") {{ ... on Experiment {{
                   runs {{ id metricSeries {{ name points {{ step value }} }} }} }} }} }}"""
    result, reads = execute(query, Scope(frozenset({"p"})))
    assert result.errors is None, result.errors
    (call,) = reads.calls
    assert sorted(call.ids) == [A, B]
    assert (call.names, call.scope, call.as_of) == (None, Scope(frozenset({"p"})), None)
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
    result, reads = execute(query)
    assert result.errors is None, result.errors
    (call,) = reads.calls
    assert (call.names, call.as_of) == (("val/loss", "nope"), "2026-03-07T00:00:00.000000Z")
    assert call.scope == Scope.everything()
    assert result.data["node"]["metricSeries"] == [{"name": "val/loss"}]


def test_stored_series_are_read_by_name_and_points_by_step() -> None:
    views = series_views(dict(pairs) for pairs in RECORDS[A])
    assert [v.name for v in views] == ["train/loss", "val/loss"]
    assert [v.points for v in views] == [((0, 10.8), (1010, 2.9)), ((500, 3.1), (1000, 2.7))]


def test_the_series_read_applies_the_scope_to_the_run_and_never_answers_version_stamps() -> None:
    text = RUN_METRIC_SERIES
    assert visible("r") in text
    assert "MATCH (s:MetricSeries {run: id})" in text
    assert "WHERE NOT k STARTS WITH '_v'" in text
