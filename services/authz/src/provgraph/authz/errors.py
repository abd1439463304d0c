"""Errors of authentication and authorisation: one root, each with its HTTP status."""

from __future__ import annotations

from typing import Any


class AuthError(Exception):
    """Root of `provgraph.authz`'s errors; `status` and `code` are what HTTP answers carry."""

    status = 500
    code = "auth_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class UnauthenticatedError(AuthError):
    """No token, an unknown token or a revoked one: the same answer for each, on purpose."""

    status = 401
    code = "unauthenticated"

    def __init__(self) -> None:
        super().__init__("a valid bearer token is required: Authorization: Bearer <token>")


class ForbiddenError(AuthError):
    """The caller is known but lacks a right: the answer names the right and the project."""

    status = 403
    code = "forbidden"


class AuthUnavailableError(AuthError):
    """The permission store (Neo4j) could not be read: retry later."""

    status = 503
    code = "auth_unavailable"
