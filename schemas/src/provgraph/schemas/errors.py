"""Errors of the event contract: one root, `ContractError`, with specific subclasses.

Errors that concern one event carry a tuple of `FieldError`s, so a batch validator can report
every problem with its field path (``payload.inputs[0].role``) and a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """Machine-readable kind of a validation problem."""

    MALFORMED = "malformed"
    UNKNOWN_EVENT_TYPE = "unknown_event_type"
    FUTURE_SCHEMA_VERSION = "future_schema_version"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    EXTRA_FIELD = "extra_field"
    INVALID_VALUE = "invalid_value"
    SUBJECT_MISMATCH = "subject_mismatch"
    TOO_LARGE = "too_large"
    # Found against the rest of a batch or the server's clock, not in the event alone:
    DUPLICATE_EVENT_ID = "duplicate_event_id"
    OCCURRED_AT_IN_FUTURE = "occurred_at_in_future"


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem in one event: where (dotted path, empty for the whole event) and why."""

    path: str
    reason: str
    code: ErrorCode

    def __str__(self) -> str:
        where = self.path or "<event>"
        return f"{where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class BatchError:
    """A problem in the event at position `index` of a batch."""

    index: int
    path: str
    reason: str
    code: ErrorCode

    def __str__(self) -> str:
        return f"event[{self.index}] {self.path or '<event>'}: {self.reason}"


class ContractError(Exception):
    """Root of every error raised by `provgraph.schemas`."""


class InvalidIdError(ContractError, ValueError):
    """A typed id (``dataset:proj/name@v1``) or an id segment is malformed."""


class RegistryError(ContractError):
    """The registry was configured inconsistently (duplicate model, gap in upcasters)."""


class BatchTooLargeError(ContractError):
    """A batch holds more events than `MAX_BATCH_EVENTS`."""


class EventValidationError(ContractError, ValueError):
    """An event does not satisfy the contract; `errors` lists every problem found."""

    def __init__(self, errors: tuple[FieldError, ...] | list[FieldError]) -> None:
        self.errors: tuple[FieldError, ...] = tuple(errors)
        super().__init__("; ".join(str(e) for e in self.errors) or "invalid event")


class MalformedEventError(EventValidationError):
    """The input is not a JSON object (bad JSON, wrong encoding, a list, ...)."""


class UnknownEventTypeError(EventValidationError):
    """The event_type is not known to this reader."""


class FutureSchemaVersionError(EventValidationError):
    """The schema_version is newer than this reader knows: upgrade provgraph."""


class EventTooLargeError(EventValidationError):
    """The serialized event is larger than `MAX_EVENT_BYTES`."""


class SubjectMismatchError(EventValidationError):
    """The envelope's subject differs from the id the payload implies."""
