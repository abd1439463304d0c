"""`ModelVersion.feedback` through the GraphQL schema, over the in-memory `FeedbackReads`
holding records read from items shaped as Neo4j answers them (stored JSON text, deployment
nodes with their labels; `feedback_reads.feedback_record`)."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from fakes import FakeFeedbackReads, fake_readers
from query_graphql_fake import view

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.feedback_reads import (
    FEEDBACK_INCIDENTS,
    FEEDBACK_METRICS,
    feedback_record,
)
from provgraph.query.read.model import EdgeView, Scope
from provgraph.query.settings import QuerySettings
from provgraph.schemas.storage import encode_json, version_key

V1, V2 = "model:p/m@1", "model:p/m@2"
API = "deployment:p/api"


class StoredNode(dict[str, Any]):
    """A node as the driver answers it: its properties and its labels."""

    def __init__(self, labels: set[str], **props: Any) -> None:
        super().__init__(props)
        self.labels = frozenset(labels)


def item(event: str, at: str, **kw: Any) -> dict[str, Any]:
    found = {"event_id": event, "at": at, "actor": "service:collector", "principal": None}
    return {**found, "deployment": None, "metrics": None, "incidents": None, **kw}


DEPLOYMENT = StoredNode(
    {"Entity", "Deployment"},
    id=API,
    project="p",
    first_seen_at="2026-03-06T09:00:00.000000Z",
    last_event_at="2026-03-07T09:00:00.000000Z",
    placeholder=False,
    name="api",
    _v_name="2026-03-06T09:00:00.000000Z|e0",
)
INCIDENTS = [{"summary": "timeouts", "severity": "high", "occurred_at": "2026-03-07T08:00:00Z"}]
RECORDS = {
    V1: [
        item(
            "e2",
            "2026-03-07T09:00:00.000000Z",
            principal="principal:service:feedback-bot",  # stored: the Principal's node id
            deployment=DEPLOYMENT,
            metrics=encode_json({"thumbs_up": 0.7}),
            incidents=encode_json(INCIDENTS),
        ),
        item("e1", "2026-03-06T10:00:00.000000Z", deployment=DEPLOYMENT),
    ],
    V2: [item("e3", "2026-03-07T10:00:00.000000Z", metrics="{broken")],
}


def execute(query: str, scope: Scope | None = None) -> tuple[Any, FakeFeedbackReads]:
    nodes = [
        view("model:p/m", "Model", name="m"),
        view(V1, "ModelVersion", name="m", version="1"),
        view(V2, "ModelVersion", name="m", version="2"),
    ]
    edges = [EdgeView(V1, "model:p/m", "VERSION_OF"), EdgeView(V2, "model:p/m", "VERSION_OF")]
    records = {i: [feedback_record(item) for item in items] for i, items in RECORDS.items()}
    reads = FakeFeedbackReads(nodes[1:], records)
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
            "eventId": "e2",
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
            "eventId": "e1",
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
    assert result.data["node"]["feedback"] == [{"eventId": "e1"}]


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
