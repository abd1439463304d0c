"""Token events: API tokens of principals, issued and revoked through the log like grants."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from provgraph.schemas.envelope import Event, Payload, Text
from provgraph.schemas.ids import PrincipalName, principal_id
from provgraph.schemas.patterns import whole

SYSTEM_PROJECT = "provgraph-system"
"""The project token events carry: tokens belong to no lineage project."""

TokenHash = Annotated[str, Field(pattern=whole("sha256:[0-9a-f]{64}"))]
"""``sha256:<64 lowercase hex>`` of the token text; the token itself is never stored."""


class GlobalRole(StrEnum):
    """Roles that hold across every project: `admin` may do everything, `auditor` reads
    everything and may use the Cypher endpoint."""

    ADMIN = "admin"
    AUDITOR = "auditor"


class TokenPayload(Payload):
    """Base of token payloads: the principal whose token it is. Subject: ``principal:<name>``."""

    name: PrincipalName

    def subject(self, project: str) -> str:
        return principal_id(self.name)


class TokenIssuedPayload(TokenPayload):
    """A principal's token (its hash) and global roles. Subject: ``principal:<name>``.

    A newer token.issued for the same name replaces the hash (rotation) and the roles.
    """

    token_hash: TokenHash
    global_roles: list[GlobalRole] = Field(default_factory=list, max_length=2)


class TokenIssued(Event):
    """``token.issued`` v1."""

    event_type: Literal["token.issued"] = "token.issued"
    schema_version: Literal[1] = 1
    payload: TokenIssuedPayload


class TokenRevokedPayload(TokenPayload):
    """The principal's current token stops working. Subject: ``principal:<name>``."""

    reason: Text | None = None


class TokenRevoked(Event):
    """``token.revoked`` v1."""

    event_type: Literal["token.revoked"] = "token.revoked"
    schema_version: Literal[1] = 1
    payload: TokenRevokedPayload
