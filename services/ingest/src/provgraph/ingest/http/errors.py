"""Errors of the ingest service: one root, `IngestError` (a `ProvgraphError`), each subclass
with its HTTP answer.

Every error renders as ``{"error": {"code", "message", "details"}}`` through core's renderer;
`status` and `code` are class attributes so the HTTP layer needs no table of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.client.errors import RejectedError, TransportError
from provgraph.core.errors import InvalidRequestError, ProvgraphError, UnavailableError
from provgraph.schemas import BatchError


class IngestError(ProvgraphError):
    """Root of every error raised by `provgraph.ingest`'s HTTP ingest path."""


class RequestError(IngestError, InvalidRequestError):
    """The request itself is wrong: retrying it unchanged gives the same answer."""

    code = "bad_request"


class MalformedJsonError(RequestError):
    """The body is not valid UTF-8 JSON."""

    code = "malformed_json"


class TooLargeError(RequestError):
    """The request is over one of the service's size limits (`max_body_bytes`,
    `MAX_BATCH_EVENTS`): send it in smaller batches."""

    status = 413


class BodyTooLargeError(TooLargeError):
    """The body is larger than `max_body_bytes` (by Content-Length or by the bytes read)."""

    code = "body_too_large"


class TooManyEventsError(TooLargeError):
    """The batch holds more than `MAX_BATCH_EVENTS` events."""

    code = "too_many_events"


class UnprocessableError(RequestError):
    """Valid JSON that is not an acceptable batch: the details say what to change."""

    status = 422


class InvalidBodyError(UnprocessableError):
    """Valid JSON, but neither an event object nor a non-empty array of events."""

    code = "invalid_body"


class BatchValidationError(UnprocessableError):
    """At least one event breaks the contract: the whole batch is refused."""

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


class ConflictError(RequestError):
    """The batch contradicts what is recorded: retrying it unchanged gives the same answer."""

    status = 409


class EventIdConflictError(ConflictError):
    """An event reuses the `event_id` of an applied event with another payload: an event_id
    means one payload forever (the same event again is accepted: a retry)."""

    code = "event_id_conflict"


class EnvironmentChangedError(ConflictError):
    """A snapshot reuses the key of a recorded environment with other contents: a recorded
    environment is read-only (record the changed one under a new key, ``based_on`` the old)."""

    code = "environment_changed"


class PlaceTakenError(ConflictError):
    """An output at a URI another job's output holds (a run of another experiment), in a
    project that requires outputs in place: one URI holds one job's output."""

    code = "place_taken"


class ConclusionRequiredError(UnprocessableError):
    """A ``run.completed`` without a conclusion, in a project whose policy requires one."""

    code = "conclusion_required"


class RecordIncompleteError(UnprocessableError):
    """A record without an element its project's policy requires (a run's code, a dataset
    version's source, an evaluation before approval...), or a run that trains on a dataset
    version whose quality gates did not pass, in a project that requires they did."""

    code = "record_incomplete"


class NameBreaksRuleError(UnprocessableError):
    """A new record (run, model version, dataset version, image) whose name breaks its
    project's naming rule, in a project that requires names to follow it."""

    code = "name_breaks_rule"


class PlaceRefusedError(UnprocessableError):
    """An output stored at a personal path or outside its project's storage roots, in a
    project that requires outputs in place."""

    code = "place_refused"


class EventLogError(IngestError):
    """The event log refused or lost the batch for a reason a retry will not fix."""

    code = "event_log_failed"


class EventLogUnavailableError(EventLogError, UnavailableError):
    """Kafka did not acknowledge in time or cannot be reached: retry later (Retry-After)."""

    code = "event_log_unavailable"


class GraphUnavailableError(IngestError, UnavailableError):
    """Neo4j (where ingest reads what is applied) cannot answer now: retry later."""

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
