"""What emitting an event requires: the rule the ingest service applies to every batch."""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.authz.errors import ForbiddenError
from provgraph.authz.model import Principal, Right
from provgraph.schemas import (
    AccessGranted,
    AccessRevoked,
    EntityDeleted,
    Event,
    IdKind,
    ProjectPolicySet,
    parse_id,
)
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.events.tokens import TokenIssued, TokenRevoked

GLOBAL_ADMIN_ROLES = frozenset({AccessRole.ADMIN, AccessRole.DELETE})
"""Project roles only a global admin may grant: a project admin granting itself `delete`, or
making more admins, would escalate beyond what it was given."""


def required_right(event: Event) -> Right | None:
    """The right `event` needs on its project; None means "global admin only" (tokens, and
    grants of the `admin` and `delete` roles)."""
    if isinstance(event, TokenIssued | TokenRevoked) or _names_a_principal(event):
        return None
    if isinstance(event, AccessGranted):
        return None if event.payload.role in GLOBAL_ADMIN_ROLES else Right.ADMIN
    if isinstance(event, AccessRevoked | ProjectPolicySet):  # a project's policy: its admins
        return Right.ADMIN
    if isinstance(event, EntityDeleted):
        return Right.DELETE
    return Right.WRITE


def authorize_events(principal: Principal, events: Sequence[Event]) -> None:
    """Raise `ForbiddenError` naming the first missing right; the batch is then refused whole."""
    for index, event in enumerate(events):
        right = required_right(event)
        if right is None:
            if not principal.is_global_admin:
                raise ForbiddenError(
                    f"{_what(event)} needs the global admin role",
                    index=index,
                    right="global admin",
                    event_type=event.event_type,
                )
        elif not principal.can(right, event.project):
            raise ForbiddenError(
                f"{event.event_type} needs the {right.value!r} right on project "
                f"{event.project!r}; nothing of the batch was written",
                index=index,
                right=right.value,
                project=event.project,
                event_type=event.event_type,
            )


def _what(event: Event) -> str:
    if isinstance(event, AccessGranted):
        return f"granting the {event.payload.role.value!r} role"
    return event.event_type


def _names_a_principal(event: Event) -> bool:
    return parse_id(event.subject).kind is IdKind.PRINCIPAL
