"""`Run.metricSeries` against real Neo4j, on a story projected and written as the projector
writes it (late and re-logged batches, in several writes).

The story (project p; project q beside it):
- run a logs train/loss and val/loss in three batches: B1 (10:00) steps 0..1010, B3 (10:30,
  after a resume) steps 1010 again, 1023 and 2000; B2 (10:10) reaches the log last, with steps
  3, 1000 and 1005. Steps 990..1022 share one bucket (16 per doubling of the step): it keeps
  1010, at B3's value (the later event on a re-logged step).
- run b logs nothing. q sends points for p's run a (unscreened, as the writer meets them):
  they land nowhere.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from support.stories import story_event

from provgraph.ingest.graphread import Neo4jGraph
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.canonical import diff
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas import Event

LOGGED = "run.metrics.logged"


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, 2, hour, minute, tzinfo=UTC)


def points(name: str, *pairs: tuple[int, float]) -> list[dict[str, Any]]:
    return [{"name": name, "step": step, "value": value} for step, value in pairs]


TRAIN_B1 = ((0, 10.8), (1, 10.1), (2, 9.7), (5, 8.9), (10, 8.1), (50, 6.0), (100, 5.2),
            (990, 2.95), (1000, 2.93), (1010, 2.91))  # fmt: skip
EXPECTED_TRAIN = [
    {"step": 0, "value": 10.8},
    {"step": 1, "value": 10.1},
    {"step": 2, "value": 9.7},
    {"step": 3, "value": 9.3},
    {"step": 5, "value": 8.9},
    {"step": 10, "value": 8.1},
    {"step": 50, "value": 6.0},
    {"step": 100, "value": 5.2},
    {"step": 1010, "value": 2.89},
    {"step": 1023, "value": 2.88},
    {"step": 2000, "value": 2.4},
]
EXPECTED_VAL = [{"step": 500, "value": 3.4}, {"step": 2000, "value": 2.65}]


@pytest.fixture()
def story(neo4j_driver: Driver, project: str, other_project: str) -> dict[str, Any]:
    p, q = project, other_project
    a, b = f"{p}-a", f"{p}-b"
    b1 = story_event(p, LOGGED, {"run_id": a, "points": [
        *points("train/loss", *TRAIN_B1), *points("val/loss", (500, 3.4))]}, at(10))  # fmt: skip
    b2 = story_event(p, LOGGED, {"run_id": a, "points": points(
        "train/loss", (3, 9.3), (1000, 2.5), (1005, 2.5))}, at(10, 10))  # fmt: skip
    b3 = story_event(p, LOGGED, {"run_id": a, "points": [
        *points("train/loss", (1010, 2.89), (1023, 2.88), (2000, 2.4)),
        *points("val/loss", (2000, 2.65))]}, at(10, 30))  # fmt: skip
    stranger = story_event(q, LOGGED, {"run_id": a, "points": points(
        "train/loss", (4, 0.0))}, at(11))  # fmt: skip
    events: list[Event] = [
        story_event(p, "run.started", {"run_id": a, "name": "pretrain"}, at(9)),
        story_event(p, "run.started", {"run_id": b, "name": "pretrain-b"}, at(9)),
        b1,
        b3,
        stranger,
        b2,
    ]
    writer = GraphWriter(neo4j_driver)
    writer.write([project_event(e) for e in events[:3]])
    writer.write([project_event(e) for e in events[3:]])
    return {"p": p, "q": q, "a": f"run:{a}", "b": f"run:{b}", "events": events}


def run_query(driver: Driver, query: str, scope: Scope | None = None) -> Any:
    settings = QuerySettings()
    context = make_context(settings, neo4j_readers(driver, settings=settings), scope=scope)
    return asyncio.run(make_schema(settings).execute(query, context_value=context))


def data(driver: Driver, query: str, scope: Scope | None = None) -> Any:
    result = run_query(driver, query, scope)
    assert result.errors is None, result.errors
    return result.data


def test_the_series_of_a_run_is_its_downsample_by_name_and_step(
    neo4j_driver: Driver, story: dict[str, Any]
) -> None:
    fields = "metricSeries { name points { step value } }"
    answer = data(
        neo4j_driver,
        f"""{{ a: node(id: "{story["a"]}") {{ ... on Run {{ {fields} }} }}
              b: node(id: "{story["b"]}") {{ ... on Run {{ {fields} }} }} }}""",
    )
    assert answer["a"]["metricSeries"] == [
        {"name": "train/loss", "points": EXPECTED_TRAIN},
        {"name": "val/loss", "points": EXPECTED_VAL},
    ]
    assert answer["b"]["metricSeries"] == []


def test_names_pick_series_and_the_run_keeps_only_its_summary(
    neo4j_driver: Driver, story: dict[str, Any]
) -> None:
    answer = data(
        neo4j_driver,
        f"""{{ node(id: "{story["a"]}") {{ properties ... on Run {{
                 metricSeries(names: ["val/loss", "no/such"]) {{ name points {{ step }} }}
               }} }} }}""",
    )
    node = answer["node"]
    assert node["metricSeries"] == [{"name": "val/loss", "points": [{"step": 500}, {"step": 2000}]}]
    props = node["properties"]
    assert (props["metric.train/loss"], props["metric_step.train/loss"]) == (2.4, 2000)
    assert not [k for k in props if k.startswith(("step.", "value.", "_v"))]


def test_the_series_is_never_shown_outside_the_scope_nor_found_by_search(
    neo4j_driver: Driver, story: dict[str, Any]
) -> None:
    query = f'{{ node(id: "{story["a"]}") {{ ... on Run {{ metricSeries {{ name }} }} }} }}'
    mine = data(neo4j_driver, query, Scope(frozenset({story["p"]})))
    assert [s["name"] for s in mine["node"]["metricSeries"]] == ["train/loss", "val/loss"]
    theirs = run_query(neo4j_driver, query, Scope(frozenset({story["q"]})))
    assert theirs.data == {"node": None}
    assert theirs.errors is not None and theirs.errors[0].extensions["code"] == "not_found"
    found = data(neo4j_driver, f'{{ search(text: "loss", project: "{story["p"]}") {{ id }} }}')
    assert found == {"search": []}


def test_neo4j_holds_the_graph_the_log_folds_to_in_memory(
    neo4j_driver: Driver, story: dict[str, Any]
) -> None:
    expected = MemoryGraph().fold(story["events"]).canonical(story["p"])
    assert f"{story['a']}#train/loss" in expected.nodes
    assert diff(expected, Neo4jGraph(neo4j_driver).canonical(story["p"])) == []
    assert not [k for k in Neo4jGraph(neo4j_driver).canonical(story["q"]).nodes if "#" in k]


def test_nodes_and_search_keep_the_runs_whose_last_logged_value_meets_a_metric(
    neo4j_driver: Driver, story: dict[str, Any]
) -> None:
    p = story["p"]

    def nodes(metric: str) -> list[str]:
        query = f'{{ nodes(type: RUN, filter: {{ project: "{p}", metric: "{metric}" }}) '
        return [n["id"] for n in data(neo4j_driver, query + "{ items { id } } }")["nodes"]["items"]]

    assert nodes("train/loss<2.5") == [story["a"]]  # its last logged value: 2.4 at step 2000
    assert nodes("last:val/loss=2.65") == [story["a"]]
    assert nodes("val/loss<2.65") == []
    searched = data(
        neo4j_driver,
        f'{{ search(text: "", filter: {{ project: "{p}", metric: "train/loss<=2.4" }}) {{ id }} }}',
    )
    assert searched == {"search": [{"id": story["a"]}]}
