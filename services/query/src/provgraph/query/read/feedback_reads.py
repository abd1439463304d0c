"""The read of a model version's feedback over Neo4j: many versions in one round trip.

Feedback is recorded by `deployment.feedback.recorded` events. The graph keeps each event that
named a model version (its applied-event record, linked to the version and the deployment) and,
on the deployment, the latest metrics and incidents its feedback recorded; what a window of an
event covered stays in the event log only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import node_view, scope_params
from provgraph.query.read.model import NodeView, Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.storage import json_key, version_key

FEEDBACK_EVENT = "deployment.feedback.recorded"
# Where the projection keeps a deployment's latest feedback (`projection/models.py`).
FEEDBACK_METRICS = json_key("feedback_metrics")
FEEDBACK_INCIDENTS = json_key("feedback_incidents")


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


class FeedbackReads:
    """The feedback read of one request, bound to its scope."""

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope

    def feedback(
        self, ids: Sequence[str], *, as_of: str | None = None, first: int = 50
    ) -> list[list[FeedbackRecord]]:
        """For each model version of `ids`, in the order asked, its newest `first` feedback
        events recorded at or before `as_of` (empty when absent or unreadable)."""
        params = {
            **scope_params(self._scope, as_of),
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
            for r in self._session.run(cypher.MODEL_FEEDBACK, params)
        }
        return [found.get(node_id, []) for node_id in ids]


def feedback_record(item: Mapping[str, Any]) -> FeedbackRecord:
    """One item of `cypher.MODEL_FEEDBACK` as a FeedbackRecord (stored JSON text decoded)."""
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
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw)
    except ValueError:  # a malformed archive should not fail a whole answer
        return None
