"""Building a service's `Authenticator` from its settings (both services do it the same way)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import neo4j

from provgraph.authz.guard import Authenticator, AuthLimits, warn_if_disabled
from provgraph.authz.store import Neo4jPrincipals, PrincipalSource


class ServiceSettings(Protocol):
    """What authentication reads of a service's settings: `provgraph.core.settings`'
    `AuthSettings` and `Neo4jSettings`, which IngestSettings and QuerySettings inherit."""

    auth_disabled: bool
    auth_cache_s: float
    auth_cache_entries: int
    auth_rate_per_s: float
    auth_rate_burst: int
    auth_failure_rate_per_s: float
    auth_failure_burst: int
    neo4j_database: str

    def neo4j_driver(self, **config: Any) -> neo4j.Driver: ...


def build_authenticator(
    settings: ServiceSettings,
    service: str,
    *,
    source: PrincipalSource | None = None,
    driver: neo4j.Driver | None = None,
) -> tuple[Authenticator, Callable[[], None]]:
    """The authenticator and what closes it: over `source`, else `driver`, else a new driver."""
    close: Callable[[], None] = lambda: None  # noqa: E731
    if settings.auth_disabled:
        authenticator = Authenticator(None, disabled=True)
    else:
        if source is None:
            if driver is None:
                driver = settings.neo4j_driver(notifications_min_severity="OFF")
                close = driver.close
            source = Neo4jPrincipals(driver, settings.neo4j_database)
        authenticator = Authenticator(
            source, cache_s=settings.auth_cache_s, limits=auth_limits(settings)
        )
    warn_if_disabled(authenticator, service)
    return authenticator, close


def auth_limits(settings: ServiceSettings) -> AuthLimits:
    """The cache bound and rate limits a service's settings ask for."""
    return AuthLimits(
        cache_entries=settings.auth_cache_entries,
        token_rate_per_s=settings.auth_rate_per_s,
        token_burst=settings.auth_rate_burst,
        failure_rate_per_s=settings.auth_failure_rate_per_s,
        failure_burst=settings.auth_failure_burst,
    )
