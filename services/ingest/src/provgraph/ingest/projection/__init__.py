"""The pure projection: event -> graph mutations, with no I/O.

`project_event` is the one entry point; each area module registers the projection of its
event types on import. The writers (`provgraph.ingest.projector.writer` for Neo4j,
`provgraph.ingest.tools.memory_graph` in memory) apply the mutations.
"""

from __future__ import annotations

from typing import Any

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
    LogStamp,
    Mutation,
    NodeUpsert,
    ProjectionError,
    ResolveReads,
    SeriesUpsert,
)
from provgraph.ingest.projection.ownership import with_writes
from provgraph.ingest.projection.resolution import requests
from provgraph.schemas import Event, event_hash


def project_event(event: Event, stamp: LogStamp | None = None) -> EventMutations:
    """Every mutation one event makes, and the record of the event itself; `stamp` is what
    the log says about it (its append time and principal), when it is folded from the log.
    Last come the `ResolveReads` requests of what it changed (`projection.resolution`)."""
    stamp = stamp or LogStamp()
    mutations = with_writes(project(event, stamp))
    mutations = (*mutations, *requests(mutations))
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
        payload_hash=event_hash(event),
        logged_at=stamp.logged_at,
        principal=stamp.principal,
    )
    return EventMutations(record, mutations)


def event_props(record: EventRecord) -> dict[str, Any]:
    """The properties of an event's AppliedEvent node, in every writer (an unknown log stamp
    is left out, as Neo4j stores no null)."""
    props = {
        "event_id": record.event_id,
        "event_type": record.event_type,
        "occurred_at": record.occurred_at,
        "project": record.project,
        "subject": record.subject,
        "actor": record.actor,
        "producer": record.producer,
        "payload_hash": record.payload_hash,
        "logged_at": record.logged_at,
        "principal": record.principal,
    }
    return {k: v for k, v in props.items() if v is not None}


__all__ = [
    "EdgeSetReplace",
    "EdgeUpsert",
    "EventMutations",
    "EventRecord",
    "LogStamp",
    "Mutation",
    "NodeUpsert",
    "ProjectionError",
    "ResolveReads",
    "SeriesUpsert",
    "event_props",
    "project_event",
]
