"""Errors of the ingest service: one root, `IngestError` (a `ProvgraphError`), each subclass
with its HTTP answer.

Every error renders as ``{"error": {"code", "message", "details"}}`` through core's renderer;
`status` and `code` are class attributes so the HTTP layer needs no table of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.client.errors import RejectedError, TransportError
from provgraph.core.errors import ProvgraphError, UnavailableError
from provgraph.schemas import BatchError


class IngestError(ProvgraphError):
    """Root of every error raised by `provgraph.ingest`'s HTTP ingest path."""

    status = 500
    code = "internal_error"


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


class EventIdConflictError(RequestError):
    """An event reuses the `event_id` of an applied event with another payload: an event_id
    means one payload forever (the same event again is accepted: a retry)."""

    status = 409
    code = "event_id_conflict"


class EnvironmentChangedError(RequestError):
    """A snapshot reuses the key of a recorded environment with other contents: a recorded
    environment is read-only (record the changed one under a new key, ``based_on`` the old)."""

    status = 409
    code = "environment_changed"


class ConclusionRequiredError(RequestError):
    """A ``run.completed`` without a conclusion, in a project whose policy requires one."""

    status = 422
    code = "conclusion_required"


class EventLogError(IngestError):
    """The event log refused or lost the batch for a reason a retry will not fix."""

    status = 500
    code = "event_log_failed"


class EventLogUnavailableError(EventLogError, UnavailableError):
    """Kafka did not acknowledge in time or cannot be reached: retry later (Retry-After)."""

    status = 503
    code = "event_log_unavailable"


class GraphUnavailableError(IngestError, UnavailableError):
    """Neo4j (where ingest reads what is applied) cannot answer now: retry later."""

    status = 503
    code = "graph_unavailable"


class NotReadyError(EventLogUnavailableError):
    """The readiness probe could not get metadata from Kafka."""

    code = "not_ready"


def append_failed(exc: TransportError, topic: str, retry_after_s: int) -> EventLogError:
    """The answer to a batch the event log did not take: refused for good, or retry later."""
    details = {"topic": topic}
    if exc.__cause__ is not None:
        details["kafka_error"] = type(exc.__cause__).__name__
    if isinstance(exc, RejectedError):
        return EventLogError(f"the event log refused the batch: {exc}", details)
    return EventLogUnavailableError(
        f"{exc}; nothing is confirmed, retry the same events later",
        details,
        retry_after_s=retry_after_s,
    )
