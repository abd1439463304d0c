"""The typed fields the explorer's cards read, against real Neo4j on a story projected and
written as the projector writes it: `Run.resources`, `ModelVersion.feedback`, `projects` and
`search(project:)`.

The story (project p; project q beside it):
- run a starts on 2 nodes x 8 H100 (data 8, tensor 2, extra cluster=east); run b records none.
- model m: version 1 trained by a, served by deployment api; version 2 trained by b, served
  by canary.
- feedback: F1 (03-06, api, v1: thumbs_up 0.8 and a timeouts incident, authenticated as
  service:collector: stamped `principal:service:collector`, shown as issued), F2 (03-07, api,
  v1: thumbs_up 0.9), F3 (03-08, canary, v2: thumbs_up 0.5), F4 (03-09, api, no version:
  thumbs_up 0.95). So api keeps F4's metrics and F1's incidents,
  canary F3's metrics.
- q holds one run named like p's, for the project filter and the project list.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from support.stories import story_event

from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas.events.tokens import SYSTEM_PROJECT

FEEDBACK = "deployment.feedback.recorded"
TIMEOUTS = {"summary": "timeouts", "severity": "high"}


def at(day: int, hour: int = 10) -> datetime:
    return datetime(2026, 3, day, hour, tzinfo=UTC)


def stored(day: int, hour: int = 10) -> str:
    return at(day, hour).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.fixture()
def story(neo4j_driver: Driver, project: str, other_project: str) -> dict[str, str]:
    p, q = project, other_project
    records: list[Any] = []

    def add(kind: str, when: datetime, principal: str | None = None, **payload: Any) -> None:
        event = story_event(q if payload.pop("in_q", False) else p, kind, payload, when)
        records.append(project_event(event, LogStamp(principal=principal)))

    resources = {
        "num_nodes": 2,
        "devices_per_node": 8,
        "accelerator": "H100",
        "parallelism": {"data": 8, "tensor": 2},
        "extra": {"cluster": "east"},
    }
    add("run.started", at(1), run_id=f"{p}-a", name="sweep-a", resources=resources)
    add("run.started", at(1, 11), run_id=f"{p}-b", name="sweep-b")
    add("run.started", at(1, 12), run_id=f"{q}-a", name="sweep-a", in_q=True)
    add("model.version.registered", at(2), name="m", version="1", produced_by_run=f"run:{p}-a")
    add("model.version.registered", at(2, 11), name="m", version="2", produced_by_run=f"run:{p}-b")
    v1, v2 = f"model:{p}/m@1", f"model:{p}/m@2"
    for name, version in (("api", v1), ("canary", v2)):
        add("deployment.created", at(3), name=name, endpoint=f"https://{name}.test/m",
            environment="prod", serves=[{"model_version": version}])  # fmt: skip
    add(FEEDBACK, at(6), "principal:service:collector", name="api", model_version=v1,
        metrics={"thumbs_up": 0.8}, incidents=[TIMEOUTS])  # fmt: skip
    add(FEEDBACK, at(7), name="api", model_version=v1, metrics={"thumbs_up": 0.9})
    add(FEEDBACK, at(8), name="canary", model_version=v2, metrics={"thumbs_up": 0.5})
    add(FEEDBACK, at(9), name="api", metrics={"thumbs_up": 0.95})
    GraphWriter(neo4j_driver).write(records)
    feedback = [m.record.event_id for m in records if m.record.event_type == FEEDBACK]
    return {"p": p, "q": q, "v1": v1, "v2": v2, **{f"F{i}": e for i, e in enumerate(feedback, 1)}}


@pytest.fixture()
def gql(neo4j_driver: Driver, story: dict[str, str]) -> Any:
    settings = QuerySettings()
    readers = neo4j_readers(neo4j_driver, settings=settings)
    schema = make_schema(settings)

    def run(query: str, scope: Scope | None = None) -> Any:
        context = make_context(settings, readers, scope=scope)
        result = asyncio.run(schema.execute(query, context_value=context))
        assert result.errors is None, result.errors
        return result.data

    return run


def test_run_resources_are_typed(gql: Any, story: dict[str, str]) -> None:
    p = story["p"]
    fields = "resources { numNodes devicesPerNode accelerator parallelism { name degree } extra }"
    data = gql(
        f"""{{ a: node(id: "run:{p}-a") {{ ... on Run {{ {fields} }} }}
              b: node(id: "run:{p}-b") {{ ... on Run {{ {fields} }} }} }}"""
    )
    assert data["a"]["resources"] == {
        "numNodes": 2,
        "devicesPerNode": 8,
        "accelerator": "H100",
        "parallelism": [{"name": "data", "degree": 8}, {"name": "tensor", "degree": 2}],
        "extra": {"cluster": "east"},
    }
    assert data["b"]["resources"] is None


FIELDS = """eventId at actor principal deployment { id ... on Deployment { name } }
            metrics incidents { summary severity reference occurredAt }"""


def _versions(gql: Any, story: dict[str, str], scope: Scope | None = None) -> dict[str, Any]:
    data = gql(
        f"""{{ modelVersion(name: "m", version: "1", project: "{story["p"]}") {{
                 model {{ versions {{ id feedback {{ {FIELDS} }} }} }} }} }}""",
        scope,
    )
    return {v["id"]: v["feedback"] for v in data["modelVersion"]["model"]["versions"]}


def test_feedback_lists_the_events_that_named_each_version(gql: Any, story: dict[str, str]) -> None:
    p, s = story["p"], story
    api = {"id": f"deployment:{p}/api", "name": "api"}
    feedback = _versions(gql, story)
    assert feedback[s["v1"]] == [
        # F4 (no version named) replaced F2's metrics; F2 recorded no incident.
        {"eventId": s["F2"], "at": stored(7), "actor": "user:test", "principal": None,
         "deployment": api, "metrics": None, "incidents": None},
        # F2 replaced F1's metrics; no later feedback of api reported incidents.
        {"eventId": s["F1"], "at": stored(6), "actor": "user:test",
         "principal": "service:collector", "deployment": api, "metrics": None,
         "incidents": [{**TIMEOUTS, "reference": None, "occurredAt": None}]},
    ]  # fmt: skip
    assert feedback[s["v2"]] == [
        {"eventId": s["F3"], "at": stored(8), "actor": "user:test", "principal": None,
         "deployment": {"id": f"deployment:{p}/canary", "name": "canary"},
         "metrics": {"thumbs_up": 0.5}, "incidents": None},
    ]  # fmt: skip


def test_feedback_as_of_and_first(gql: Any, story: dict[str, str]) -> None:
    v1 = story["v1"]
    data = gql(
        f"""{{ then: node(id: "{v1}", asOf: "{stored(6, 12)}") {{
                 ... on ModelVersion {{ feedback {{ eventId }} }} }}
              newest: node(id: "{v1}") {{
                 ... on ModelVersion {{ feedback(first: 1) {{ eventId }} }} }}
           }}"""
    )
    assert data["then"]["feedback"] == [{"eventId": story["F1"]}]
    assert data["newest"]["feedback"] == [{"eventId": story["F2"]}]


def test_feedback_is_never_shown_outside_the_scope(
    neo4j_driver: Driver, gql: Any, story: dict[str, str]
) -> None:
    # A reader of p alone sees it all; the version is not found for a reader of q alone.
    assert _versions(gql, story, Scope(frozenset({story["p"]}))) == _versions(gql, story)
    settings = QuerySettings()
    context = make_context(
        settings,
        neo4j_readers(neo4j_driver, settings=settings),
        scope=Scope(frozenset({story["q"]})),
    )
    query = f'{{ node(id: "{story["v1"]}") {{ ... on ModelVersion {{ feedback {{ at }} }} }} }}'
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    assert result.data == {"node": None}
    assert result.errors is not None and result.errors[0].extensions["code"] == "not_found"


def test_projects_follow_the_scope(gql: Any, story: dict[str, str]) -> None:
    p, q = story["p"], story["q"]
    everything = gql("{ projects }")["projects"]
    assert {p, q} <= set(everything) and SYSTEM_PROJECT not in everything
    assert everything == sorted(everything)
    assert gql("{ projects }", Scope(frozenset({p, "no-such-project"}))) == {"projects": [p]}
    assert gql("{ projects }", Scope(frozenset({p, q}))) == {"projects": sorted([p, q])}


def test_search_keeps_to_the_project_given(gql: Any, story: dict[str, str]) -> None:
    p, q = story["p"], story["q"]

    def found(extra: str) -> list[str]:
        data = gql(f'{{ search(text: "sweep-a", types: [RUN]{extra}) {{ id project }} }}')
        return sorted(n["id"] for n in data["search"])

    assert {f"run:{p}-a", f"run:{q}-a"} <= set(found(""))
    assert found(f', project: "{p}"') == [f"run:{p}-a"]
    assert found(f', project: "{q}"') == [f"run:{q}-a"]
