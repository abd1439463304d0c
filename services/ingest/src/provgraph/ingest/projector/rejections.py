"""Why a record is dead-lettered: the reason codes, the errors that carry them, and the
integrity rule every writer applies (one `event_id`, one payload).

Every dead letter says why in one snake_case code (the `provgraph-reason` header). An error
names its reason with a `reason` class attribute (`ProjectionError` and its subclasses do);
the contract's own errors are mapped by type. Records of an event type or schema version this
reader does not know are *parked*: kept, and appended to the log again once an upgraded
projector understands them (`provgraph.ingest.projector.redrive`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from provgraph.schemas import FutureSchemaVersionError, UnknownEventTypeError

if TYPE_CHECKING:  # kept light: the command line reads the reasons without the projection
    from provgraph.ingest.projection.mutations import EventMutations


class Reason(StrEnum):
    """Why a record was dead-lettered."""

    CONTRACT = "contract"
    PROJECTION = "projection"
    STORE_REJECTED = "store_rejected"
    CONFLICT = "conflict"
    OWNERSHIP = "ownership"
    ENVIRONMENT_CHANGED = "environment_changed"  # a recorded environment is read-only
    CONCLUSION_REQUIRED = "conclusion_required"  # the project's policy refuses run.completed
    RECORD_INCOMPLETE = "record_incomplete"  # a record lacks what the project's policy requires
    NAME_BREAKS_RULE = "name_breaks_rule"  # a new record's name breaks its naming rule
    PLACE_REFUSED = "place_refused"  # an output out of the project's storage roots
    PLACE_TAKEN = "place_taken"  # an output at a URI another job's output holds
    OCCURRED_AT_IN_FUTURE = "occurred_at_in_future"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNKNOWN_TYPE = "unknown_type"


PARKED = frozenset({Reason.UNSUPPORTED_VERSION, Reason.UNKNOWN_TYPE})
"""Reasons that an upgrade can lift: such records are kept and appended again later."""


class RecordRejected(Exception):
    """Root of the projector's refusals of one record; `reason` names the dead letter's code."""

    reason: str = Reason.PROJECTION


class StoreRejected(RecordRejected):
    """The store refused the event's write (a value it cannot hold, a rejected statement)."""

    reason = Reason.STORE_REJECTED

    @classmethod
    def of(cls, error: BaseException) -> StoreRejected:
        """The refusal, named after the store's own error."""
        return cls(f"{type(error).__name__}: {error}")


class EventConflict(RecordRejected):
    """Another payload was already applied (or came first) under the same `event_id`."""

    reason = Reason.CONFLICT


class OccurredInFuture(RecordRejected):
    """The event claims to have happened later than the log received it, beyond the skew."""

    reason = Reason.OCCURRED_AT_IN_FUTURE


EventKey = tuple[str, str]
"""An event copy's identity: (event_id, payload_hash)."""


class RejectedEvents(Exception):
    """A writer refused some events of a batch and applied nothing of it; `errors` says which
    (by `key_of`) and why. The batch without them may be written again."""

    def __init__(self, errors: Mapping[EventKey, RecordRejected]) -> None:
        self.errors = dict(errors)
        first = next(iter(self.errors.values()), None)
        super().__init__(f"{len(self.errors)} events refused, first: {first}")


def key_of(change: EventMutations) -> EventKey:
    """The identity of one copy of an event."""
    return change.record.event_id, change.record.payload_hash


def reason_of(error: BaseException) -> str:
    """The dead-letter reason code of an error."""
    named = getattr(error, "reason", None)
    if isinstance(named, str) and named:
        return str(named)
    if isinstance(error, UnknownEventTypeError):
        return Reason.UNKNOWN_TYPE
    if isinstance(error, FutureSchemaVersionError):
        return Reason.UNSUPPORTED_VERSION
    return Reason.CONTRACT


def first_copies(
    changes: Sequence[EventMutations], applied: Mapping[str, str]
) -> list[EventMutations]:
    """The changes to apply: the first copy of each event_id not in `applied` (event_id ->
    payload hash, "" when unknown). A later copy with the same payload is a silent no-op; one
    with another payload raises `RejectedEvents` (reason `conflict`), so the first copy in log
    order wins whatever the batching."""
    first = dict(applied)
    fresh: list[EventMutations] = []
    conflicts: dict[EventKey, RecordRejected] = {}
    for change in changes:
        event_id, digest = key_of(change)
        known = first.get(event_id)
        if known is None:
            first[event_id] = digest
            fresh.append(change)
        elif known and digest and known != digest:
            conflicts[(event_id, digest)] = EventConflict(
                f"event_id {event_id} already stands for the payload {known}; this one is {digest}"
            )
    if conflicts:
        raise RejectedEvents(conflicts)
    return fresh


def one_line(error: BaseException, limit: int | None = 500) -> str:
    """An error as one line of text (its message, else its class), at most `limit` chars."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"
