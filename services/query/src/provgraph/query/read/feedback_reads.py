"""The read of a model version's feedback: the `FeedbackReads` port, and `FeedbackReader`, its
adapter over Neo4j with its Cypher (many versions in one round trip).

Feedback is recorded by `deployment.feedback.recorded` events. The graph keeps each event that
named a model version (its applied-event record, linked to the version and the deployment) and,
on the deployment, the latest metrics and incidents its feedback recorded; what a window of an
event covered stays in the event log only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import node_view, scope_params
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import NodeView, Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label
from provgraph.schemas.storage import PROJECT, json_key, parse_json, version_key

FEEDBACK_EVENT = "deployment.feedback.recorded"
# Where the projection keeps a deployment's latest feedback (`projection/models.py`).
FEEDBACK_METRICS = json_key("feedback_metrics")
FEEDBACK_INCIDENTS = json_key("feedback_incidents")

# For each model version of $ids, the readable feedback events that named it, newest first
# (at most $fetch), each with the deployment that recorded it. A deployment keeps only the
# latest metrics and incidents any of its feedback recorded; the version stamp beside each
# (`<occurred_at>|<event_id>`, never answered) tells which event they came from, so an event's
# own values are answered while the deployment still holds them, and null once a later one
# replaced them.
MODEL_FEEDBACK = f"""
UNWIND $ids AS id
MATCH (v:{Label.MODEL_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {visible("v")}
RETURN id, COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL} {{event_type: $event_type}})-[:{TOUCHED_REL}]->(v)
    WHERE ($all OR e.{PROJECT} IN $projects) AND ($as_of IS NULL OR e.occurred_at <= $as_of)
    WITH e ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT $fetch
    OPTIONAL MATCH (e)-[:{TOUCHED_REL}]->(d:{Label.DEPLOYMENT}:{Label.ENTITY} {{id: e.subject}})
    WHERE {visible("d")}
    RETURN {{event_id: e.event_id, at: e.occurred_at, actor: e.actor, principal: e.principal,
             deployment: d,
             metrics: CASE WHEN d[$metrics_v] ENDS WITH '|' + e.event_id
                           THEN d[$metrics] END,
             incidents: CASE WHEN d[$incidents_v] ENDS WITH '|' + e.event_id
                             THEN d[$incidents] END}} AS item
    ORDER BY item.at DESC, item.event_id DESC
}} AS feedback
"""


@dataclass(frozen=True)
class FeedbackRecord:
    """One feedback event that named a model version.

    `metrics` and `incidents` are what this event recorded, while its deployment still holds
    them (a later feedback of the deployment replaces them): None otherwise.
    """

    event_id: str
    at: str
    actor: str | None
    principal: str | None
    deployment: NodeView | None
    metrics: Mapping[str, Any] | None
    incidents: tuple[Mapping[str, Any], ...] | None


class FeedbackReads(Protocol):
    """What `ModelVersion.feedback` reads, in the caller's `Scope`: a version of an unreadable
    project is a missing one, and events of unreadable projects are left out."""

    def feedback(
        self, ids: Sequence[str], scope: Scope, *, as_of: str | None = None, first: int = 50
    ) -> list[list[FeedbackRecord]]:
        """For each model version of `ids`, in the order asked, its newest `first` feedback
        events recorded at or before `as_of` (empty when absent or unreadable)."""


class FeedbackReader:
    """`FeedbackReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def feedback(
        self, ids: Sequence[str], scope: Scope, *, as_of: str | None = None, first: int = 50
    ) -> list[list[FeedbackRecord]]:
        """For each model version of `ids`, in the order asked, its newest `first` feedback."""
        params = {
            **scope_params(scope, as_of),
            "ids": list(ids),
            "event_type": FEEDBACK_EVENT,
            "fetch": first,
            "metrics": FEEDBACK_METRICS,
            "metrics_v": version_key(FEEDBACK_METRICS),
            "incidents": FEEDBACK_INCIDENTS,
            "incidents_v": version_key(FEEDBACK_INCIDENTS),
        }
        found = {
            str(r["id"]): [feedback_record(item) for item in r["feedback"]]
            for r in self._session.run(MODEL_FEEDBACK, params)
        }
        return [found.get(node_id, []) for node_id in ids]


def feedback_record(item: Mapping[str, Any]) -> FeedbackRecord:
    """One item of `MODEL_FEEDBACK` as a FeedbackRecord (stored JSON text decoded)."""
    deployment = item.get("deployment")
    metrics = _decoded(item.get("metrics"))
    incidents = _decoded(item.get("incidents"))
    return FeedbackRecord(
        event_id=str(item["event_id"]),
        at=str(item["at"]),
        actor=item.get("actor"),
        principal=issued_name(item.get("principal")),
        deployment=node_view(deployment) if deployment is not None else None,
        metrics=metrics if isinstance(metrics, dict) else None,
        incidents=(
            tuple(i for i in incidents if isinstance(i, dict))
            if isinstance(incidents, list)
            else None
        ),
    )


def _decoded(raw: Any) -> Any:
    return parse_json(raw) if isinstance(raw, str) else None
