"""`ModelVersion.feedback`: the production feedback recorded about a model version, typed.

Every model version of an answer is read in one batch (`read/feedback_reads.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.args import page_size
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import as_text
from provgraph.query.graphql.node import Node, to_node
from provgraph.query.graphql.refs import DeploymentRef
from provgraph.query.read.feedback_reads import FeedbackRecord


@strawberry.type(description="A production incident a feedback event recorded.")
class Incident:
    summary: str | None
    severity: str | None = strawberry.field(description="low | medium | high | critical")
    reference: str | None = strawberry.field(description="A link to the incident's record.")
    occurred_at: str | None

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Incident:
        return cls(
            summary=as_text(stored.get("summary")),
            severity=as_text(stored.get("severity")),
            reference=as_text(stored.get("reference")),
            occurred_at=as_text(stored.get("occurred_at")),
        )


_KEPT = "while its deployment keeps them (its next feedback with some replaces them), else null"


@strawberry.type(description="A `deployment.feedback.recorded` event that named this version.")
class ModelFeedback:
    event_id: str
    at: str = strawberry.field(description="When it occurred (the event's `occurred_at`).")
    actor: str | None = strawberry.field(description="Who the client said recorded it.")
    principal: str | None = strawberry.field(
        description="Who ingest authenticated for it, named as the token was issued (`user:ann`)."
    )
    deployment: DeploymentRef | None = strawberry.field(
        description="The deployment that recorded it (null when the caller may not read it)."
    )
    metrics: JSON | None = strawberry.field(description=f"What it measured, {_KEPT}.")
    incidents: list[Incident] | None = strawberry.field(
        description=f"The incidents it reported, {_KEPT}."
    )

    @classmethod
    def of(cls, record: FeedbackRecord, as_of: str | None) -> ModelFeedback:
        deployment = record.deployment
        incidents = record.incidents
        return cls(
            event_id=record.event_id,
            at=record.at,
            actor=record.actor,
            principal=record.principal,
            deployment=to_node(deployment, as_of) if deployment is not None else None,
            metrics=JSON(dict(record.metrics)) if record.metrics is not None else None,
            incidents=[Incident.of(i) for i in incidents] if incidents is not None else None,
        )


_FIRST = "The newest this many (default: the page size)."


async def _feedback(
    root: strawberry.Parent[Node],
    info: Info,
    first: Annotated[int | None, strawberry.argument(description=_FIRST)] = None,
) -> list[ModelFeedback]:
    ctx = info.context
    size = page_size(first, ctx.settings)
    reads, scope, as_of = ctx.readers.feedback, ctx.scope, root.as_of

    def fetch(ids: list[str]) -> list[list[FeedbackRecord]]:
        return reads.feedback(ids, scope, as_of=as_of, first=size)

    records = await ctx.loaders.batched(("feedback", as_of, size), fetch).load(root.view.id)
    return [ModelFeedback.of(record, as_of) for record in records]


def feedback_field() -> Any:
    """The `feedback` field of a model version: its feedback events, newest first."""
    return strawberry.field(
        resolver=_feedback,
        description="Production feedback recorded about this version, newest first.",
    )
