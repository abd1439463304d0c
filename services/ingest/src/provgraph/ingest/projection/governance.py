"""Projection of governance events: access grants, tokens and tombstones.

Who wins among them is decided by the log's order, never by a client's clock: their versions
are `<logged_at>|<event_id>` (the broker's append time, `Ctx(by_log=True)`), and the times
they store (`token_issued_at`, `revoked_at`, `deleted_at`) are log times. A grant sent with a
far-future `occurred_at` is beaten by any revoke appended after it.
"""

from __future__ import annotations

from provgraph.ingest.projection.base import Ctx, projects_logged
from provgraph.ingest.projection.completeness import policy_of, policy_props
from provgraph.ingest.projection.mutations import LogStamp, Mutation
from provgraph.schemas.events.governance import AccessGranted, AccessRevoked, EntityDeleted
from provgraph.schemas.events.policy import ProjectPolicySet
from provgraph.schemas.events.tokens import TokenIssued, TokenRevoked
from provgraph.schemas.storage import (
    ACCESS,
    ACCESS_EXPIRES_AT,
    DELETED_AT,
    Value,
    dotted,
    format_time,
)


def _access(event: AccessGranted | AccessRevoked, state: str) -> dict[str, Value | None]:
    p = event.payload
    return {dotted(ACCESS, p.principal, p.role.value): state}


@projects_logged(AccessGranted)
def _access_granted(event: AccessGranted, stamp: LogStamp) -> list[Mutation]:
    ctx, p = Ctx(event, stamp, by_log=True), event.payload
    props = _access(event, "granted")
    key = dotted(ACCESS_EXPIRES_AT, p.principal, p.role.value)
    # Written as "" when a grant has no expiry, so a newer open-ended grant replaces an old one.
    props[key] = format_time(p.expires_at) if p.expires_at else ""
    return [ctx.node(event.subject, defining=True, props=props)]


@projects_logged(AccessRevoked)
def _access_revoked(event: AccessRevoked, stamp: LogStamp) -> list[Mutation]:
    ctx = Ctx(event, stamp, by_log=True)
    return [ctx.node(event.subject, defining=True, props=_access(event, "revoked"))]


@projects_logged(ProjectPolicySet)
def _policy_set(event: ProjectPolicySet, stamp: LogStamp) -> list[Mutation]:
    """The project's policy, last-writer-wins by the log's order (as grants), and its entry in
    the policy history by log version: the one in force for a later event is the last before
    it in the log (`projection.discipline`)."""
    ctx, p = Ctx(event, stamp, by_log=True), event.payload
    props: dict[str, Value | None] = {
        "policy_reason": p.reason or "",
        "policy_set_by": event.actor,
        "policy_set_at": ctx.logged_at,
    }
    versioned = policy_props(ctx.version, policy_of(p))  # now, and in the history
    return [ctx.node(event.subject, defining=True, props=props, versioned=versioned)]


@projects_logged(EntityDeleted)
def _entity_deleted(event: EntityDeleted, stamp: LogStamp) -> list[Mutation]:
    """Soft delete: `deleted_at` is the earliest tombstone and is never cleared.

    Later events still fold into the node (the log is the truth, audit sees them), but
    nothing unsets `deleted_at`, so a deleted entity never comes back.
    """
    ctx = Ctx(event, stamp, by_log=True)
    props: dict[str, Value | None] = {
        "deleted_reason": event.payload.reason,
        "deleted_by": event.actor,
    }
    return [ctx.node(event.subject, props=props, mins={DELETED_AT: ctx.logged_at})]


@projects_logged(TokenIssued)
def _token_issued(event: TokenIssued, stamp: LogStamp) -> list[Mutation]:
    """The principal's current token hash, when it was issued, and its global roles (LWW).

    A token is valid while `revoked_at` is absent or older than `token_issued_at`, so a
    revocation and a later re-issue fold to the same answer in any order.
    """
    ctx, p = Ctx(event, stamp, by_log=True), event.payload
    props: dict[str, Value | None] = {
        "name": p.name,
        "token_hash": p.token_hash,
        "token_issued_at": ctx.logged_at,
        "global_roles": tuple(sorted(role.value for role in p.global_roles)),
    }
    return [ctx.node(event.subject, defining=True, props=props)]


@projects_logged(TokenRevoked)
def _token_revoked(event: TokenRevoked, stamp: LogStamp) -> list[Mutation]:
    """The latest revocation time; it disables every token issued before it."""
    ctx = Ctx(event, stamp, by_log=True)
    props: dict[str, Value | None] = {"name": event.payload.name}
    maxs = {"revoked_at": ctx.logged_at}
    return [ctx.node(event.subject, defining=True, props=props, maxs=maxs)]
