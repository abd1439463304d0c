"""`ModelVersion.feedback` through the GraphQL schema, over the in-memory `FeedbackReads` on
the graph the feedback events fold into (stored JSON text, version stamps, the deployment
nodes the events touched)."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from fakes import FakeFeedbackReads, fake_readers
from query_graphql_fake import view
from support.contract_graphs_team import EventLog, Who, instant

from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.feedback_reads import FEEDBACK_INCIDENTS, FEEDBACK_METRICS
from provgraph.query.read.model import EdgeView, Scope
from provgraph.query.settings import QuerySettings
from provgraph.schemas.storage import version_key

V1, V2 = "model:p/m@1", "model:p/m@2"
API, CANARY = "deployment:p/api", "deployment:p/canary"
COLLECTOR: Who = ("service:collector", None)
BOT: Who = ("service:collector", "service:feedback-bot")  # ingest stamped the bot's token
INCIDENTS = [{"summary": "timeouts", "severity": "high", "occurred_at": "2026-03-07T08:00:00Z"}]


def graph() -> tuple[MemoryGraph, dict[str, str]]:
    """The graph of the feedback events, and their ids by name: e1 and e2 of api on V1, e3 of
    canary on V2. Canary's stored node is then spoiled by hand, as no event writes it: another
    project's, its metrics malformed JSON."""
    log, ids = EventLog(), dict[str, str]()
    for version in ("1", "2"):
        log.add("p", COLLECTOR, instant("2026-03-01T09:00"), "model.version.registered",
                name="m", version=version, produced_by_run="run:train")  # fmt: skip
    for name, served, when in (("api", V1, "2026-03-06T09:00"), ("canary", V2, "2026-03-07T09:30")):
        log.add("p", COLLECTOR, instant(when), "deployment.created", name=name,
                endpoint="https://m.test", environment="prod",
                serves=[{"model_version": served}])  # fmt: skip
    feedback: dict[str, tuple[Who, str, str, dict[str, Any]]] = {
        "e1": (COLLECTOR, "2026-03-06T10:00", V1, {"name": "api"}),
        "e2": (BOT, "2026-03-07T09:00", V1,
               {"name": "api", "metrics": {"thumbs_up": 0.7}, "incidents": INCIDENTS}),
        "e3": (COLLECTOR, "2026-03-07T10:00", V2, {"name": "canary", "metrics": {"up": 0.1}}),
    }  # fmt: skip
    for key, (who, when, version, payload) in feedback.items():
        ids[key] = log.add("p", who, instant(when), "deployment.feedback.recorded",
                           model_version=version, **payload).event_id  # fmt: skip
    memory = log.memory()
    memory.nodes[CANARY][1].update({"project": "q", FEEDBACK_METRICS: "{broken"})
    return memory, ids


GRAPH, IDS = graph()


def execute(query: str, scope: Scope | None = None) -> tuple[Any, FakeFeedbackReads]:
    nodes = [
        view("model:p/m", "Model", name="m"),
        view(V1, "ModelVersion", name="m", version="1"),
        view(V2, "ModelVersion", name="m", version="2"),
    ]
    edges = [EdgeView(V1, "model:p/m", "VERSION_OF"), EdgeView(V2, "model:p/m", "VERSION_OF")]
    reads = FakeFeedbackReads(GRAPH)
    settings = QuerySettings()
    readers = fake_readers(FakeReader(nodes, edges), feedback=reads)
    context = make_context(settings, readers, scope=scope)
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    return result, reads


FIELDS = """eventId at actor principal deployment { id ... on Deployment { name } }
            metrics incidents { summary severity reference occurredAt }"""


def test_every_version_of_an_answer_is_read_in_one_batch() -> None:
    query = f"""{{ node(id: "model:p/m") {{ ... on Model {{
                   versions {{ id feedback {{ {FIELDS} }} }} }} }} }}"""
    result, reads = execute(query, Scope(frozenset({"p"})))
    assert result.errors is None, result.errors
    (call,) = reads.calls
    assert sorted(call.ids) == [V1, V2]
    assert (call.scope, call.as_of) == (Scope(frozenset({"p"})), None)
    assert call.first == QuerySettings().page_default_size
    by_id = {v["id"]: v["feedback"] for v in result.data["node"]["versions"]}
    assert by_id[V1] == [
        {
            "eventId": IDS["e2"],
            "at": "2026-03-07T09:00:00.000000Z",
            "actor": "service:collector",
            "principal": "service:feedback-bot",  # shown as the token was issued
            "deployment": {"id": API, "name": "api"},
            "metrics": {"thumbs_up": 0.7},
            "incidents": [
                {
                    "summary": "timeouts",
                    "severity": "high",
                    "reference": None,
                    "occurredAt": "2026-03-07T08:00:00Z",
                }
            ],
        },
        {
            "eventId": IDS["e1"],
            "at": "2026-03-06T10:00:00.000000Z",
            "actor": "service:collector",
            "principal": None,
            "deployment": {"id": API, "name": "api"},
            "metrics": None,
            "incidents": None,
        },
    ]
    # A malformed archive and an unreadable deployment answer null, not an error.
    (broken,) = by_id[V2]
    assert (broken["metrics"], broken["deployment"]) == (None, None)


def test_first_and_as_of_reach_the_read() -> None:
    query = f"""{{ node(id: "{V1}", asOf: "2026-03-07T00:00:00Z") {{
                   ... on ModelVersion {{ feedback(first: 1) {{ eventId }} }} }} }}"""
    result, reads = execute(query)
    assert result.errors is None, result.errors
    (call,) = reads.calls
    assert (call.as_of, call.first, call.scope) == (
        "2026-03-07T00:00:00.000000Z",
        1,
        Scope.everything(),
    )
    assert result.data["node"]["feedback"] == [{"eventId": IDS["e1"]}]


def test_first_out_of_range_is_refused_before_reading() -> None:
    query = f'{{ node(id: "{V1}") {{ ... on ModelVersion {{ feedback(first: 0) {{ at }} }} }} }}'
    result, reads = execute(query)
    assert result.errors is not None
    assert result.errors[0].extensions["code"] == "invalid_argument"
    assert reads.calls == []


def test_the_reader_reads_where_the_projection_keeps_a_deployment_s_latest_feedback() -> None:
    assert (FEEDBACK_METRICS, version_key(FEEDBACK_METRICS)) == (
        "feedback_metrics_json",
        "_v_feedback_metrics_json",
    )
    assert (FEEDBACK_INCIDENTS, version_key(FEEDBACK_INCIDENTS)) == (
        "feedback_incidents_json",
        "_v_feedback_incidents_json",
    )
