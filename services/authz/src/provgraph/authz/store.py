"""Where principals and grants are read: the projected state in Neo4j (`PrincipalSource`).

Tokens (`token.issued` / `token.revoked`) fold into `(:Principal {name, token_hash,
token_issued_at, revoked_at, global_roles})`; grants (`access.granted` / `access.revoked`) fold
into `(:Project)` properties `access.<principal>.<role>` = granted | revoked and
`access_expires_at.<principal>.<role>`. Both are rebuilt by a replay like the rest of the graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

import neo4j

from provgraph.authz.model import Principal
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import ACCESS, ACCESS_EXPIRES_AT, dotted

_ROLES = frozenset(role.value for role in AccessRole)

PRINCIPAL_BY_HASH = f"""
MATCH (p:{Label.PRINCIPAL} {{token_hash: $hash}})
WHERE p.revoked_at IS NULL OR p.revoked_at < p.token_issued_at
RETURN p.name AS name, coalesce(p.global_roles, []) AS global_roles
"""

_AFTER_ACCESS = len(dotted(ACCESS, ""))  # `<principal>.<role>` starts here

# Project nodes are few (one per project); the grant keys of one principal share a prefix.
GRANTS_OF = f"""
MATCH (g:{Label.PROJECT})
WITH g, [k IN keys(g) WHERE k STARTS WITH $prefix AND g[k] = 'granted'] AS granted
WHERE size(granted) > 0
RETURN g.project AS project,
       [k IN granted | [substring(k, size($prefix)),
                        coalesce(g['{ACCESS_EXPIRES_AT}.' + substring(k, {_AFTER_ACCESS})], '')]]
         AS roles
"""


class PrincipalSource(Protocol):
    """Finds the principal a token hash belongs to (None: unknown or revoked)."""

    def lookup(self, token_hash: str) -> Principal | None: ...


class Neo4jPrincipals:
    """Reads principals and their grants from the projected graph."""

    def __init__(self, driver: neo4j.Driver, database: str = "neo4j") -> None:
        self._driver = driver
        self._database = database

    def lookup(self, token_hash: str) -> Principal | None:
        found = self._read(PRINCIPAL_BY_HASH, hash=token_hash)
        if not found:
            return None
        name = str(found[0]["name"])
        rows = self._read(GRANTS_OF, prefix=dotted(ACCESS, name, ""))
        return Principal(name, frozenset(found[0]["global_roles"]), grants_by_project(rows))

    def _read(self, query: str, **params: Any) -> list[neo4j.Record]:
        # READ routing (any member of a cluster): no lookup follows a write of its own request;
        # tokens and grants arrive through the log and the projector, and a member a moment
        # behind the leader delays an issue or a revocation no more than `auth_cache_s` does.
        records, _, _ = self._driver.execute_query(
            query, params, database_=self._database, routing_=neo4j.RoutingControl.READ
        )
        return records


def grants_by_project(
    rows: Iterable[Mapping[str, Any]], now: datetime | None = None
) -> dict[str, frozenset[str]]:
    """{project: roles} from (project, [[role, expires_at], ...]) rows, expired grants left out."""
    cut = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    out: dict[str, frozenset[str]] = {}
    for row in rows:
        roles = {role for role, expires in row["roles"] if role in _ROLES and _open(expires, cut)}
        if roles:
            out[str(row["project"])] = frozenset(roles)
    return out


def _open(expires_at: str, cut: str) -> bool:
    return not expires_at or expires_at > cut
