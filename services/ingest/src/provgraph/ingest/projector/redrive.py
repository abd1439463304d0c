"""Reading the dead-letter topic, and appending dead letters back to the event log.

Parked dead letters (an event type or schema version the projector did not know) wait for an
upgrade: at start, the projector reads the dead letters it has not judged yet and appends the
parked ones it understands now to the event log again, key and value as they were, with the
record's own headers (`redrive_parked`). Which letters a projector has judged is a consumer
group position on the dead-letter topic, one group per set of event types and versions the
projector knows: an upgraded projector reads the whole topic again, a restart only what came
since. An event appended twice is applied once (its `event_id`), so a letter redriven again is
harmless. `provgraph deadletters redrive` does the same on demand, for any reason.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from provgraph.client.kafka_log import KafkaEventLog, Record
from provgraph.core import kafka_clients
from provgraph.ingest.openlineage.wrap import decode_log_value
from provgraph.ingest.projector.deadletter import (
    ERROR_HEADER,
    ERROR_MESSAGE,
    SOURCE_OFFSET,
    SOURCE_PARTITION,
    SOURCE_TOPIC,
    own_headers,
    reason_in,
)
from provgraph.ingest.projector.rejections import PARKED
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import REGISTRY
from provgraph.schemas.registry import type_and_version

log = logging.getLogger("provgraph.ingest.projector")

_POLL_MS = 1000


@dataclass(frozen=True)
class DeadLetter:
    """One record of the dead-letter topic: where it is, its key, value and headers."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...] = ()

    @cached_property
    def header(self) -> dict[str, bytes]:
        """The headers by name (the last one of a name counts)."""
        return dict(self.headers)

    @property
    def reason(self) -> str:
        """Why it was dead-lettered (`rejections.Reason`)."""
        return reason_in(self.header)

    @property
    def error(self) -> str:
        """The error, one line."""
        raw = self.header.get(ERROR_HEADER) or self.header.get(ERROR_MESSAGE) or b""
        return " ".join(raw.decode("utf-8", "replace").split())

    @property
    def source(self) -> str:
        """Where the record was in the event log: `<topic>/<partition>@<offset>`."""
        h = {k: self.header.get(k, b"?").decode("utf-8", "replace") for k in _SOURCE}
        return f"{h[SOURCE_TOPIC]}/{h[SOURCE_PARTITION]}@{h[SOURCE_OFFSET]}"

    def record(self) -> Record:
        """The record as it was in the event log: key, value and its own headers."""
        return self.key, self.value or b"", own_headers(self.headers)


_SOURCE = (SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET)


class DeadLetterReader:
    """Reads the dead-letter topic up to its end at opening, from the beginning, or with
    `group` from that consumer group's committed position (`commit` moves it)."""

    def __init__(self, settings: IngestSettings, group: str | None = None) -> None:
        self.topic = settings.dead_letter_topic
        self.consumer = kafka_clients.consumer(settings.kafka_bootstrap, group_id=group)
        parts = self.consumer.partitions_for_topic(self.topic) or set()
        self.tps = [TopicPartition(self.topic, p) for p in sorted(parts)]
        self.consumer.assign(self.tps)
        self.consumer.seek_to_beginning(*self.tps)
        if group is not None:
            for tp in self.tps:
                committed = self.consumer.committed(tp)
                if committed is not None:
                    self.consumer.seek(tp, committed)
        self.ends = self.consumer.end_offsets(self.tps) if self.tps else {}
        self.read = 0

    def batches(self, limit: int | None = None) -> Iterator[list[DeadLetter]]:
        """The letters up to the end offsets seen at opening (at most `limit`), in batches."""
        while self._pending() and (limit is None or self.read < limit):
            polled = self.consumer.poll(timeout_ms=_POLL_MS, max_records=_budget(self, limit))
            batch = [
                DeadLetter(r.partition, r.offset, r.key, r.value, tuple(r.headers or ()))
                for tp in self.tps
                for r in polled.get(tp, [])
                if r.offset < self.ends[tp]
            ]
            self.read += len(batch)
            yield batch

    def _pending(self) -> bool:
        return any(self.consumer.position(tp) < self.ends[tp] for tp in self.tps)

    def commit(self) -> None:
        """Commit the position reached (everything before it is judged)."""
        at = {tp: OffsetAndMetadata(self.consumer.position(tp), "", -1) for tp in self.tps}
        if at:
            self.consumer.commit(at)

    def close(self) -> None:
        """Leave without committing anything more."""
        self.consumer.close(autocommit=False)


def _budget(reader: DeadLetterReader, limit: int | None) -> int:
    return 5000 if limit is None else max(1, min(5000, limit - reader.read))


def understood(letter: DeadLetter) -> bool:
    """True when this reader can read the letter's value as an event now."""
    try:
        decode_log_value(letter.value or b"")
    except Exception:  # anything that stops the read means: not understood
        return False
    return True


@dataclass
class Redriven:
    """What a redrive did: letters read, letters of the chosen reasons, appended, left."""

    read: int = 0
    matched: int = 0
    appended: int = 0
    by_reason: dict[str, int] = field(default_factory=dict)

    @property
    def left(self) -> int:
        """Letters of the chosen reasons that are still not understood."""
        return self.matched - self.appended


def redrive(
    batches: Iterable[list[DeadLetter]],
    reasons: frozenset[str],
    append: Callable[[list[Record]], None],
    progress: Callable[[Redriven], None] = lambda _done: None,
) -> Redriven:
    """Append every letter of `reasons` that is understood now to the event log again."""
    done = Redriven()
    for batch in batches:
        chosen = [letter for letter in batch if letter.reason in reasons]
        again = [letter for letter in chosen if understood(letter)]
        if again:
            append([letter.record() for letter in again])
        done.read += len(batch)
        done.matched += len(chosen)
        done.appended += len(again)
        for letter in again:
            done.by_reason[letter.reason] = done.by_reason.get(letter.reason, 0) + 1
        progress(done)
    return done


def reader_fingerprint() -> str:
    """A short digest of every (event_type, schema_version) this reader knows."""
    known = sorted(f"{t}@{v}" for t, v in map(type_and_version, REGISTRY.models()))
    return hashlib.sha256(",".join(known).encode()).hexdigest()[:12]


class Appender:
    """Appends raw records to the event log, connecting on first use (the caller closes it)."""

    def __init__(self, settings: IngestSettings) -> None:
        self.settings = settings
        self._log: KafkaEventLog | None = None

    def __call__(self, records: list[Record]) -> None:
        if self._log is None:
            self._log = self.settings.event_log(client_id="provgraph-redrive")
        self._log.append_records(records)

    def close(self) -> None:
        """Flush and close the producer, if one was opened."""
        if self._log is not None:
            self._log.close()


def redrive_parked(settings: IngestSettings) -> Redriven:
    """At projector start: append the parked letters understood now to the event log again
    (at most `redrive_max_records` letters read) and log one INFO line. The position moves
    only once the appends are acknowledged."""
    group = f"{settings.projector_group}.redrive.{reader_fingerprint()}"
    reader, append = DeadLetterReader(settings, group=group), Appender(settings)
    try:
        done = redrive(reader.batches(settings.redrive_max_records), PARKED, append)
        reader.commit()
    finally:
        append.close()
        reader.close()
    log.info(
        "redrive: %d parked dead letters appended to %s again, %d still not understood "
        "(%d dead letters read)",
        done.appended,
        settings.events_topic,
        done.left,
        done.read,
    )
    return done
