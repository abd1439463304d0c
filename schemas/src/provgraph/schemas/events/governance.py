"""Governance events: access grants and tombstones."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from provgraph.schemas.envelope import Event, Payload, Text, UtcDatetime
from provgraph.schemas.ids import EntityId, ProjectSlug, project_id
from provgraph.schemas.patterns import SPACE, whole

Principal = Annotated[
    str, Field(pattern=whole(rf"(?:user|group|service):[^{SPACE}\x00-\x1F\x7F]{{1,256}}"))
]
"""Who is granted access: ``user:<name>``, ``group:<name>`` or ``service:<name>`` (no spaces,
no control characters: it becomes part of a property name, ``access.<principal>.<role>``)."""


class AccessRole(StrEnum):
    """What a principal may do in a project; ``delete`` is granted separately on purpose."""

    READER = "reader"
    WRITER = "writer"
    ADMIN = "admin"
    DELETE = "delete"
    AUDITOR = "auditor"


class AccessPayload(Payload):
    """Base of access payloads. Subject: ``project:<project>`` (the event's own project)."""

    principal: Principal
    project: ProjectSlug
    role: AccessRole

    def subject(self, project: str) -> str:
        return project_id(self.project)


class AccessGrantedPayload(AccessPayload):
    """A principal receives a role in a project, optionally until `expires_at`."""

    expires_at: UtcDatetime | None = None


class AccessGranted(Event):
    """``access.granted`` v1."""

    event_type: Literal["access.granted"] = "access.granted"
    schema_version: Literal[1] = 1
    payload: AccessGrantedPayload


class AccessRevokedPayload(AccessPayload):
    """A principal loses a role in a project."""

    reason: Text | None = None


class AccessRevoked(Event):
    """``access.revoked`` v1."""

    event_type: Literal["access.revoked"] = "access.revoked"
    schema_version: Literal[1] = 1
    payload: AccessRevokedPayload


class EntityDeletedPayload(Payload):
    """A tombstone: the entity is soft-deleted with a reason. Subject: the entity id."""

    entity: EntityId
    reason: Text

    def subject(self, project: str) -> str:
        return self.entity


class EntityDeleted(Event):
    """``entity.deleted`` v1."""

    event_type: Literal["entity.deleted"] = "entity.deleted"
    schema_version: Literal[1] = 1
    payload: EntityDeletedPayload
