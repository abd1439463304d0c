"""Authentication and authorisation shared by the ingest and query services.

Tokens and grants are events in the log; the projector folds them into Neo4j; both services
read them through `Neo4jPrincipals` behind an `Authenticator` whose cache holds an answer for
at most `cache_s` (1 s by default). docs/security.md describes the model.
"""

from provgraph.authz.errors import (
    AuthError,
    AuthUnavailableError,
    ForbiddenError,
    RateLimitedError,
    UnauthenticatedError,
)
from provgraph.authz.guard import DEFAULT_CACHE_S, Authenticator, AuthLimits, warn_if_disabled
from provgraph.authz.model import DEV_PRINCIPAL, Principal, Right
from provgraph.authz.rules import authorize_events, required_right
from provgraph.authz.store import Neo4jPrincipals, PrincipalSource
from provgraph.authz.tokens import bearer_token, hash_token, new_token

__all__ = [
    "DEFAULT_CACHE_S",
    "DEV_PRINCIPAL",
    "AuthError",
    "AuthLimits",
    "AuthUnavailableError",
    "Authenticator",
    "ForbiddenError",
    "Neo4jPrincipals",
    "Principal",
    "PrincipalSource",
    "RateLimitedError",
    "Right",
    "UnauthenticatedError",
    "authorize_events",
    "bearer_token",
    "hash_token",
    "new_token",
    "required_right",
    "warn_if_disabled",
]
