"""Fakes of the projector's ports, for unit tests of its loop (no broker, no database).

They pass the same contract suites as the Kafka adapters (test_projector_ports_fakes.py), so a loop
test on them means what it says. Faults are queued explicitly: `poll_errors`, `send_errors`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from contracts.projector_ports import Letter, Record

from provgraph.ingest.ports import (
    DeadLetterSink,
    EventSource,
    LogRecord,
    PartitionOffset,
    Poison,
)
from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projector.deadletter import headers_for
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import parse_event
from provgraph.schemas.storage import format_time

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class FakeLog:
    """A topic's partitions and its group's committed offsets (next offset to read).

    Records are timed as a broker with `LogAppendTime` times them: by the log's clock, which
    starts now and moves one millisecond per record (a test may set `clock_ms`)."""

    topic: str = "provgraph.events"
    partitions: list[list[Record]] = field(default_factory=lambda: [[], [], []])
    committed: dict[int, int] = field(default_factory=dict)
    clock_ms: int = field(default_factory=lambda: int(time.time() * 1000))

    def append(
        self,
        partition: int,
        key: bytes | None,
        value: bytes | None,
        headers: tuple[tuple[str, bytes], ...] = (),
    ) -> Record:
        records = self.partitions[partition]
        self.clock_ms += 1
        record = Record(self.topic, partition, len(records), key, value, self.clock_ms, headers)
        records.append(record)
        return record


class FakeEventSource(EventSource):
    """The only member of its group: on the first poll it is assigned every partition."""

    def __init__(self, log: FakeLog, max_records: int = 500) -> None:
        self.log = log
        self.max_records = max_records
        self.positions: dict[int, int] = {}
        self.on_assigned: Callable[[list[int]], None] | None = None
        self.pending = False
        self.poll_errors: list[Exception | None] = []
        self.commit_errors: list[Exception] = []
        self.closed = False

    @property
    def topic(self) -> str:
        return self.log.topic

    def subscribe(self, on_assigned: Callable[[list[int]], None]) -> None:
        self.on_assigned, self.pending = on_assigned, True

    def rebalance(self) -> None:
        """Take the partitions away; the next poll assigns them again (and announces it)."""
        self.positions, self.pending = {}, True

    def poll(self) -> list[LogRecord]:
        error = self.poll_errors.pop(0) if self.poll_errors else None
        if error is not None:  # a None in the list: that poll succeeds
            raise error
        if self.pending:
            self._assign()
        batch: list[LogRecord] = []
        for partition, at in sorted(self.positions.items()):
            taken = self.log.partitions[partition][at : at + self.max_records - len(batch)]
            self.positions[partition] = at + len(taken)
            batch += taken
        return batch

    def _assign(self) -> None:
        self.pending = False
        partitions = list(range(len(self.log.partitions)))
        self.positions = {p: self.log.committed.get(p, 0) for p in partitions}
        assert self.on_assigned is not None
        self.on_assigned(partitions)

    def seek(self, partition: int, offset: int | None) -> None:
        assert partition in self.positions, f"partition {partition} is not assigned"
        self.positions[partition] = offset or 0

    def assigned(self) -> list[int]:
        return sorted(self.positions)

    def commit(self, done: Sequence[PartitionOffset]) -> None:
        if self.commit_errors:
            raise self.commit_errors.pop(0)
        self.log.committed.update({d.partition: d.offset + 1 for d in done})

    def caught_up(self) -> bool:
        ends = {p: len(records) for p, records in enumerate(self.log.partitions)}
        return bool(self.positions) and all(ends[p] <= at for p, at in self.positions.items())

    def close(self) -> None:
        self.positions, self.closed = {}, True


class FakeDeadLetters(DeadLetterSink):
    """Keeps dead letters in a list, with the headers the dead-letter topic would carry."""

    def __init__(self, letters: list[Letter] | None = None) -> None:
        self.letters: list[Letter] = [] if letters is None else letters
        self.send_errors: list[Exception] = []
        self.closed = False

    def send(self, poison: Poison) -> None:
        if self.send_errors:
            raise self.send_errors.pop(0)
        for record, error in poison:
            self.letters.append((record.key, record.value, dict(headers_for(record, error))))

    def close(self) -> None:
        self.closed = True


def log_time(record: Record) -> str:
    """A record's log time as the graph stores it."""
    return format_time(EPOCH + timedelta(milliseconds=record.timestamp))


def folded(
    log: FakeLog, skip: Callable[[Record], bool] = lambda r: r.key == b"poison"
) -> MemoryGraph:
    """The in-memory fold of the log's events (records `skip` leaves out aside), each with the
    time its record was logged and the principal it carries, in log order per partition."""
    graph = MemoryGraph()
    for records in log.partitions:
        for record in records:
            if not skip(record):
                principal = dict(record.headers).get("provgraph-principal")
                stamp = LogStamp(log_time(record), principal.decode() if principal else None)
                graph.apply(project_event(parse_event(record.value or b""), stamp))
    return graph


class RecordingStop(threading.Event):
    """A stop event that never sleeps: it records each wait, and is set after `after` waits."""

    def __init__(self, after: int | None = None) -> None:
        super().__init__()
        self.waits: list[float | None] = []
        self.after = after

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        if self.after is not None and len(self.waits) >= self.after:
            self.set()
        return self.is_set()
