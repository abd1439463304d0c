"""The pure projection: event -> graph mutations, with no I/O.

`project_event` is the one entry point; each area module registers the projection of its
event types on import. `MemoryGraph` applies mutations with the same semantics as the
Neo4j writer, for `verify` and for tests.
"""

from __future__ import annotations

from provgraph.ingest.projection import (  # noqa: F401 (register)
    data,
    governance,
    models,
    openlineage,
    runs,
)
from provgraph.ingest.projection.base import format_time, project
from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    EventMutations,
    EventRecord,
    Mutation,
    NodeUpsert,
    ProjectionError,
)
from provgraph.schemas import Event


def project_event(event: Event) -> EventMutations:
    """Every mutation one event makes, and the record of the event itself."""
    mutations = tuple(project(event))
    touched = frozenset(m.id for m in mutations if isinstance(m, NodeUpsert))
    record = EventRecord(
        event_id=str(event.event_id),
        event_type=event.event_type,
        occurred_at=format_time(event.occurred_at),
        project=event.project,
        subject=event.subject,
        actor=event.actor,
        touched=touched,
        producer=event.producer,
    )
    return EventMutations(record, mutations)


__all__ = [
    "EdgeSetReplace",
    "EdgeUpsert",
    "EventMutations",
    "EventRecord",
    "Mutation",
    "NodeUpsert",
    "ProjectionError",
    "project_event",
]
