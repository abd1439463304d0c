"""One poll batch from records to the store, where no record can stop the others.

`parse_records` reads each record (its event, the log's stamp) and folds it; a record that
fails anywhere there (not JSON, the contract, the projection, a value the store cannot hold,
an `occurred_at` too far ahead of the log) is poison, with the error saying why.
`apply_batch` writes the rest with the batch's offsets in one transaction; when the store
refuses the batch for a reason other than being unreachable, it halves the batch until each
refused record is alone, applies everything else, and only then stores the offsets. Dead
letters are always stored before the offsets move past them. The projector and `replay` both
go through here, so they keep and refuse the same records.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    Forbidden,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from provgraph.client.eventlog import PRINCIPAL_HEADER
from provgraph.ingest.openlineage.wrap import decode_log_value
from provgraph.ingest.ports import BatchWriter, LogRecord, PartitionOffset, Poison
from provgraph.ingest.projection import EventMutations, LogStamp, project_event
from provgraph.ingest.projector.rejections import (
    OccurredInFuture,
    RejectedEvents,
    StoreRejected,
    key_of,
    one_line,
    reason_of,
)

__all__ = [
    "Entry",
    "Interrupted",
    "Parsed",
    "apply_batch",
    "describe",
    "is_record_fault",
    "is_unavailable",
    "parse_record",
    "parse_records",
    "write_isolated",
]
from provgraph.ingest.projector.storable import check_storable
from provgraph.schemas import Event
from provgraph.schemas.storage import format_time

log = logging.getLogger("provgraph.ingest.projector")

_UNAVAILABLE = (
    ServiceUnavailable,
    SessionExpired,
    TransientError,
    DatabaseUnavailable,
    ConnectionAcquisitionTimeoutError,
    OSError,
)
# Errors of the setup, not of any record: refusing records for them would dead-letter the log.
_FATAL = (AuthError, Forbidden, ConfigurationError)

Entry = tuple[LogRecord, EventMutations]
Retry = Callable[[Callable[[], int]], int]
Send = Callable[[Poison], None]


class Interrupted(Exception):
    """Raised by a `Retry` asked to stop while it waited: never a record's fault."""


def is_unavailable(exc: BaseException) -> bool:
    """True for errors that mean "Neo4j is not there right now": retry, never dead-letter."""
    retryable = getattr(exc, "is_retryable", None)
    return isinstance(exc, _UNAVAILABLE) or bool(retryable and retryable())


def is_record_fault(exc: BaseException) -> bool:
    """True for a refusal that some record of the batch may have caused (isolate it)."""
    return not (is_unavailable(exc) or isinstance(exc, (*_FATAL, Interrupted)))


# ---- reading records ------------------------------------------------------------------------


@dataclass
class Parsed:
    """A poll batch read: each projected record with its fold, the poison, the last offsets."""

    entries: list[Entry] = field(default_factory=list)
    poison: Poison = field(default_factory=list)
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def changes(self) -> list[EventMutations]:
        """The projected events, in log order."""
        return [change for _, change in self.entries]

    def reject(self, errors: Sequence[BaseException | None]) -> None:
        """Move to the poison each entry whose error (one per entry of `changes`, in order)
        is not None."""
        kept: list[Entry] = []
        for entry, error in zip(self.entries, errors, strict=True):
            if error is None:
                kept.append(entry)
            else:
                self.poison.append((entry[0], error))
        self.entries = kept

    def last_offsets(self) -> list[PartitionOffset]:
        """The last offset of each (topic, partition) the batch covers."""
        return [PartitionOffset(t, p, o) for (t, p), o in self.offsets.items()]


def parse_records(records: Sequence[LogRecord], max_skew_s: float | None = None) -> Parsed:
    """Read and project each record; any failure of one record makes it poison. With
    `max_skew_s`, an event whose `occurred_at` is that much later than its record's log time
    is poison too."""
    parsed = Parsed()
    for record in records:
        key = (record.topic, record.partition)
        parsed.offsets[key] = max(parsed.offsets.get(key, -1), record.offset)
        try:
            parsed.entries.append((record, parse_record(record, max_skew_s)))
        except Exception as exc:  # pure code on one record's bytes: whatever fails is its own
            parsed.poison.append((record, exc))
    return parsed


def parse_record(record: LogRecord, max_skew_s: float | None = None) -> EventMutations:
    """One record's event folded into mutations, with the log's stamp; raises why not."""
    logged = logged_time(record)
    event = decode_log_value(record.value or b"")
    if max_skew_s is not None and logged is not None:
        check_clock(event, logged, max_skew_s)
    stamp = LogStamp(format_time(logged) if logged else None, principal_of(record))
    change = project_event(event, stamp)
    check_storable(change)
    return change


def logged_time(record: LogRecord) -> datetime | None:
    """When the log received the record (its timestamp, the broker's append time on the
    event topic); None when the record carries none."""
    ms = getattr(record, "timestamp", None)
    if not isinstance(ms, int) or ms < 0:
        return None
    return datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)


def principal_of(record: LogRecord) -> str | None:
    """The principal ingest stamped on the record, if any (the last such header counts)."""
    found = [v for k, v in getattr(record, "headers", None) or () if k == PRINCIPAL_HEADER]
    return found[-1].decode("utf-8", "replace") if found and found[-1] is not None else None


def check_clock(event: Event, logged: datetime, max_skew_s: float) -> None:
    """Raise `OccurredInFuture` when `occurred_at` is more than `max_skew_s` after `logged`."""
    ahead = event.occurred_at - logged
    if ahead > timedelta(seconds=max_skew_s):
        raise OccurredInFuture(
            f"occurred_at {format_time(event.occurred_at)} is {ahead.total_seconds():.0f}s "
            f"after the log received the event ({format_time(logged)}); "
            f"at most {max_skew_s:g}s of clock skew is allowed"
        )


# ---- writing them ---------------------------------------------------------------------------


def apply_batch(
    writer: BatchWriter, parsed: Parsed, send: Send, retry: Retry
) -> tuple[int, Poison]:
    """Store the poison, apply the batch and store its offsets; return (events applied, the
    records the store refused). `send` stores dead letters; `retry` runs a write, waiting
    while the store is unavailable."""
    if parsed.poison:
        send(parsed.poison)
    offsets = parsed.last_offsets()
    try:
        return retry(lambda: writer.write(parsed.changes, offsets)), []
    except Exception as exc:
        if not is_record_fault(exc):
            raise
        log.warning(
            "the writer refused a batch of %d events (%s: %s); isolating the records at fault",
            len(parsed.entries),
            type(exc).__name__,
            one_line(exc),
        )
    applied, refused = write_isolated(writer, parsed.entries, retry)
    if refused:
        send(refused)
    retry(lambda: writer.write([], offsets))
    return applied, refused


def write_isolated(writer: BatchWriter, entries: list[Entry], retry: Retry) -> tuple[int, Poison]:
    """Apply `entries` (without offsets), leaving out every record the store refuses: the ones
    it names, else by halves until the record at fault is alone. Halves are written in log
    order, so the first copy of an event wins as it would in one batch."""
    if not entries:
        return 0, []
    try:
        return retry(lambda: writer.write([change for _, change in entries])), []
    except Exception as exc:
        if not is_record_fault(exc):
            raise
        error = exc
    named = _named(entries, error)
    if named:
        kept = {id(record) for record, _ in named}
        rest = [entry for entry in entries if id(entry[0]) not in kept]
        applied, refused = write_isolated(writer, rest, retry)
        return applied, [*named, *refused]
    if len(entries) == 1:
        return 0, [(entries[0][0], StoreRejected.of(error))]
    middle = len(entries) // 2
    first, first_refused = write_isolated(writer, entries[:middle], retry)
    second, second_refused = write_isolated(writer, entries[middle:], retry)
    return first + second, [*first_refused, *second_refused]


def _named(entries: list[Entry], error: Exception) -> Poison:
    """The entries a `RejectedEvents` names, each with its own error."""
    if not isinstance(error, RejectedEvents):
        return []
    return [(r, error.errors[key_of(c)]) for r, c in entries if key_of(c) in error.errors]


def describe(poison: Poison) -> str:
    """Counts by reason, e.g. `contract 2, store_rejected 1`."""
    counts: dict[str, int] = {}
    for _, error in poison:
        reason = reason_of(error)
        counts[reason] = counts.get(reason, 0) + 1
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items()))
