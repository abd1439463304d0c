"""Errors of the query service: one root, each with a stable code for API answers."""

from __future__ import annotations

from typing import Any


class QueryError(Exception):
    """Root of the query service's expected failures; `code` is what clients match on."""

    code = "INTERNAL"
    status = 500

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFoundError(QueryError):
    """No such node, or one the caller may not read (answered identically, on purpose)."""

    code = "NOT_FOUND"
    status = 404


class InvalidArgumentError(QueryError):
    """An argument is malformed or out of range (depth over the maximum, bad cursor...)."""

    code = "INVALID_ARGUMENT"
    status = 400


class LimitExceededError(QueryError):
    """A request is larger than a configured limit (query depth, aliases, tokens, cost)."""

    code = "LIMIT_EXCEEDED"
    status = 400


class ForbiddenQueryError(QueryError):
    """A Cypher query that is not read-only, or uses a refused construct."""

    code = "FORBIDDEN_QUERY"
    status = 400


class UnavailableError(QueryError):
    """Neo4j is unreachable or timed out."""

    code = "UNAVAILABLE"
    status = 503
