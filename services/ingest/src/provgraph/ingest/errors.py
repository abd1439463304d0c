"""Errors of the ingest service: one root, `IngestError`, each subclass with its HTTP answer.

Every error renders as ``{"error": {"code", "message", "details"}}``; `status` and `code` are
class attributes so the HTTP layer needs no table of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from provgraph.schemas import BatchError


class IngestError(Exception):
    """Root of every error raised by `provgraph.ingest`'s HTTP ingest path."""

    status: int = 500
    code: str = "internal_error"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details or {}

    def body(self) -> dict[str, Any]:
        """The JSON error envelope of this error."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def headers(self) -> dict[str, str]:
        """Extra HTTP headers of the answer (none by default)."""
        return {}


class RequestError(IngestError):
    """The request itself is wrong: retrying it unchanged gives the same answer."""

    status = 400
    code = "bad_request"


class MalformedJsonError(RequestError):
    """The body is not valid UTF-8 JSON."""

    status = 400
    code = "malformed_json"


class BodyTooLargeError(RequestError):
    """The body is larger than `max_body_bytes` (by Content-Length or by the bytes read)."""

    status = 413
    code = "body_too_large"


class TooManyEventsError(RequestError):
    """The batch holds more than `MAX_BATCH_EVENTS` events."""

    status = 413
    code = "too_many_events"


class InvalidBodyError(RequestError):
    """Valid JSON, but neither an event object nor a non-empty array of events."""

    status = 422
    code = "invalid_body"


class BatchValidationError(RequestError):
    """At least one event breaks the contract: the whole batch is refused."""

    status = 422
    code = "validation_failed"

    @classmethod
    def of(cls, count: int, errors: Sequence[BatchError]) -> BatchValidationError:
        """The refusal of a batch of `count` events, listing every problem of every event."""
        invalid = len({e.index for e in errors})
        rows = [
            {"index": e.index, "path": e.path, "reason": e.reason, "code": str(e.code)}
            for e in errors
        ]
        return cls(
            f"{invalid} of {count} events break the contract; nothing of the batch was written",
            {"events": count, "invalid_events": invalid, "errors": rows},
        )


class EventLogError(IngestError):
    """The event log refused or lost the batch for a reason a retry will not fix."""

    status = 500
    code = "event_log_failed"


class EventLogUnavailableError(EventLogError):
    """Kafka did not acknowledge in time or cannot be reached: retry later."""

    status = 503
    code = "event_log_unavailable"

    def __init__(
        self, message: str, details: dict[str, Any] | None = None, *, retry_after_s: int = 5
    ) -> None:
        super().__init__(message, details)
        self.retry_after_s = retry_after_s

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class NotReadyError(EventLogUnavailableError):
    """The readiness probe could not get metadata from Kafka."""

    code = "not_ready"
