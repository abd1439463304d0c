"""Projection of governance events: access grants and tombstones."""

from __future__ import annotations

from provgraph.ingest.projection.base import Ctx, format_time, projects
from provgraph.ingest.projection.mutations import Mutation, Value
from provgraph.schemas import AccessGranted, AccessRevoked, EntityDeleted


def _access(event: AccessGranted | AccessRevoked, state: str) -> dict[str, Value | None]:
    p = event.payload
    key = f"{p.principal}.{p.role.value}"
    return {f"access.{key}": state}


@projects(AccessGranted)
def _access_granted(event: AccessGranted) -> list[Mutation]:
    ctx, p = Ctx(event), event.payload
    props = _access(event, "granted")
    key = f"access_expires_at.{p.principal}.{p.role.value}"
    # Written as "" when a grant has no expiry, so a newer open-ended grant replaces an old one.
    props[key] = format_time(p.expires_at) if p.expires_at else ""
    return [ctx.node(event.subject, defining=True, props=props)]


@projects(AccessRevoked)
def _access_revoked(event: AccessRevoked) -> list[Mutation]:
    return [Ctx(event).node(event.subject, defining=True, props=_access(event, "revoked"))]


@projects(EntityDeleted)
def _entity_deleted(event: EntityDeleted) -> list[Mutation]:
    """Soft delete: `deleted_at` is the earliest tombstone and is never cleared.

    Later events still fold into the node (the log is the truth, audit sees them), but
    nothing unsets `deleted_at`, so a deleted entity never comes back.
    """
    ctx = Ctx(event)
    props: dict[str, Value | None] = {
        "deleted_reason": event.payload.reason,
        "deleted_by": event.actor,
    }
    return [ctx.node(event.subject, props=props, mins={"deleted_at": ctx.time})]
