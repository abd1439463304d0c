"""`FeedbackReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fakes.stored import StoredGraph, StoredNode, visible
from provgraph.ingest.projection import EventRecord
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.feedback_reads import (
    FEEDBACK_EVENT,
    FEEDBACK_INCIDENTS,
    FEEDBACK_METRICS,
    FeedbackRecord,
    feedback_record,
)
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import version_key


@dataclass(frozen=True)
class FeedbackCall:
    """One call of `feedback`, as asked."""

    ids: tuple[str, ...]
    scope: Scope
    as_of: str | None
    first: int


def _held(deployment: StoredNode | None, key: str, event: EventRecord) -> Any:
    """What the deployment holds under `key`, while `event` is the one that wrote it."""
    if deployment is None:
        return None
    stamp = deployment.get(version_key(key))
    return deployment.get(key) if str(stamp or "").endswith(f"|{event.event_id}") else None


class FakeFeedbackReads:
    """A readable model version's feedback events, newest first, each with the deployment
    that recorded it and what that deployment still holds of it (as
    `feedback_reads.MODEL_FEEDBACK` reads them; tests/contracts/feedback_reads.py holds both to
    the same answers). Every call is kept in `calls`."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.calls: list[FeedbackCall] = []

    def feedback(
        self, ids: Sequence[str], scope: Scope, *, as_of: str | None = None, first: int = 50
    ) -> list[list[FeedbackRecord]]:
        self.calls.append(FeedbackCall(tuple(ids), scope, as_of, first))
        return [self._of(version_id, scope, as_of, first) for version_id in ids]

    def _of(
        self, version_id: str, scope: Scope, as_of: str | None, first: int
    ) -> list[FeedbackRecord]:
        version = self.graph.node(version_id, Label.MODEL_VERSION)
        if version is None or not visible(version, scope, as_of):
            return []
        events = [
            e
            for e in self.graph.touching(version_id)
            if e.event_type == FEEDBACK_EVENT
            and scope.allows(e.project)
            and (as_of is None or e.occurred_at <= as_of)
        ]
        events.sort(key=lambda e: (e.occurred_at, e.event_id), reverse=True)
        return [feedback_record(self._item(e, scope, as_of)) for e in events[:first]]

    def _item(self, event: EventRecord, scope: Scope, as_of: str | None) -> dict[str, Any]:
        deployment = self.graph.node(event.subject, Label.DEPLOYMENT)
        if deployment is None or event.subject not in event.touched:
            deployment = None
        elif not visible(deployment, scope, as_of):
            deployment = None  # answered like a missing one, and so is what it holds
        return {
            "event_id": event.event_id,
            "at": event.occurred_at,
            "actor": event.actor,
            "principal": event.principal,
            "deployment": deployment,
            "metrics": _held(deployment, FEEDBACK_METRICS, event),
            "incidents": _held(deployment, FEEDBACK_INCIDENTS, event),
        }
