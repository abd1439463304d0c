"""Who a caller is and what it may do: principals, roles and the rights they give.

| role (per project) | rights on that project |
|---|---|
| reader | read |
| writer | write (emit events) |
| admin | read, write, admin (grant and revoke roles; only global admins grant admin, delete) |
| delete | delete (emit `entity.deleted`); granted separately, never implied |
| auditor | read |

Global roles (from the principal's token): `admin` has every right on every project, token
management and the Cypher endpoint; `auditor` reads every project and may use the Cypher
endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class Right(StrEnum):
    """One thing a caller may do on a project."""

    READ = "reader"
    WRITE = "writer"
    ADMIN = "admin"
    DELETE = "delete"


_ROLE_RIGHTS: Mapping[str, frozenset[Right]] = {
    "reader": frozenset({Right.READ}),
    "writer": frozenset({Right.WRITE}),
    "admin": frozenset({Right.READ, Right.WRITE, Right.ADMIN}),
    "delete": frozenset({Right.DELETE}),
    "auditor": frozenset({Right.READ}),
}

GLOBAL_ADMIN = "admin"
GLOBAL_AUDITOR = "auditor"


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: its name, global roles and roles per project."""

    name: str
    global_roles: frozenset[str] = frozenset()
    roles: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @property
    def is_global_admin(self) -> bool:
        return GLOBAL_ADMIN in self.global_roles

    @property
    def may_use_cypher(self) -> bool:
        """Arbitrary Cypher cannot be filtered per project: global auditors and admins only."""
        return bool({GLOBAL_ADMIN, GLOBAL_AUDITOR} & self.global_roles)

    def can(self, right: Right, project: str) -> bool:
        if self.is_global_admin:
            return True
        if right is Right.READ and GLOBAL_AUDITOR in self.global_roles:
            return True
        return any(right in _ROLE_RIGHTS.get(r, frozenset()) for r in self.roles.get(project, ()))

    def readable_projects(self) -> frozenset[str] | None:
        """The projects this caller may read; None means every project."""
        if self.may_use_cypher:
            return None
        return frozenset(p for p in self.roles if self.can(Right.READ, p))


DEV_PRINCIPAL = Principal("service:auth-disabled", frozenset({GLOBAL_ADMIN, GLOBAL_AUDITOR}))
"""Who every caller is when authentication is turned off (`PROVGRAPH_AUTH_DISABLED=true`)."""
