"""The one error root of provgraph's services and its one JSON shape.

Every expected failure of a service is a `ProvgraphError` subclass that carries its HTTP status
and a stable `code` (lower snake_case, the same casing everywhere: HTTP answers, GraphQL error
extensions, CLI messages). Every HTTP service answers an error with the same body::

    {"error": {"code": "not_found", "message": "...", "details": {...}}}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class ProvgraphError(Exception):
    """Root of every expected failure of provgraph's services; subclasses set status and code."""

    status: int = 500
    code: str = "internal_error"

    def __init__(self, message: str, details: Mapping[str, Any] | None = None, **more: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = {**(details or {}), **more}

    def body(self) -> dict[str, Any]:
        """The JSON error envelope of this error (details made JSON-safe)."""
        return error_body(self.code, self.message, self.details)

    def headers(self) -> dict[str, str]:
        """Extra HTTP headers of the answer (none by default)."""
        return {}


def error_body(code: str, message: str, details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"error": {code, message, details}}``, with any non-JSON detail value as a string."""
    safe = json.loads(json.dumps(dict(details or {}), default=str))
    return {"error": {"code": code, "message": message, "details": safe}}


class InvalidRequestError(ProvgraphError):
    """The request is wrong: retrying it unchanged gives the same answer."""

    status = 400
    code = "invalid_request"


class BadRequestError(InvalidRequestError):
    """The HTTP request itself cannot be read (request line, headers, `Content-Length`)."""

    code = "bad_request"


class NotFoundError(ProvgraphError):
    """No such thing, or one the caller may not read (answered identically, on purpose)."""

    status = 404
    code = "not_found"


class RetryLaterError(ProvgraphError):
    """A failure that passes with time: the answer says when to try again (``Retry-After``)
    when `retry_after_s` is known."""

    def __init__(
        self,
        message: str,
        details: Mapping[str, Any] | None = None,
        *,
        retry_after_s: int | None = None,
        **more: Any,
    ) -> None:
        super().__init__(message, details, **more)
        self.retry_after_s = retry_after_s

    def headers(self) -> dict[str, str]:
        return {} if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}


class UnavailableError(RetryLaterError):
    """A server the service depends on (Kafka, Neo4j) cannot answer now: retry later."""

    status = 503
    code = "unavailable"
