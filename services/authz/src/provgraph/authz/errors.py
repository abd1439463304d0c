"""Errors of authentication and authorisation: one root under `ProvgraphError`, each with its
HTTP status; core's renderer (`provgraph.core.http`) answers them."""

from __future__ import annotations

from provgraph.core.errors import ProvgraphError, RetryLaterError


class AuthError(ProvgraphError):
    """Root of `provgraph.authz`'s errors; `status` and `code` are what HTTP answers carry."""

    code = "auth_error"


class UnauthenticatedError(AuthError):
    """No token, an unknown token or a revoked one: the same answer for each, on purpose."""

    status = 401
    code = "unauthenticated"

    def __init__(self) -> None:
        super().__init__("a valid bearer token is required: Authorization: Bearer <token>")

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": "Bearer"}


class ForbiddenError(AuthError):
    """The caller is known but lacks a right: the answer names the right and the project."""

    status = 403
    code = "forbidden"


class AuthUnavailableError(AuthError):
    """The permission store (Neo4j) could not be read: retry later."""

    status = 503
    code = "auth_unavailable"


class RateLimitedError(AuthError, RetryLaterError):
    """Too many requests with one token, or too many failed authentications from one client
    address: retry after `retry_after_s` seconds (the `Retry-After` header, and the details)."""

    status = 429
    code = "rate_limited"

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message, {"retry_after_s": retry_after_s}, retry_after_s=retry_after_s)
