"""Fakes of the projector's ports, for unit tests of its loop (no broker, no database).

They pass the same contract suites as the Kafka adapters (test_projector_ports.py), so a loop
test on them means what it says. Faults are queued explicitly: `poll_errors`, `send_errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from contracts.projector_ports import Letter, Record

from provgraph.ingest.deadletter import headers_for
from provgraph.ingest.ports import (
    DeadLetterSink,
    EventSource,
    LogRecord,
    PartitionOffset,
    Poison,
)


@dataclass
class FakeLog:
    """A topic's partitions and its group's committed offsets (next offset to read)."""

    topic: str = "provgraph.events"
    partitions: list[list[Record]] = field(default_factory=lambda: [[], [], []])
    committed: dict[int, int] = field(default_factory=dict)

    def append(self, partition: int, key: bytes | None, value: bytes | None) -> Record:
        records = self.partitions[partition]
        records.append(Record(self.topic, partition, len(records), key, value))
        return records[-1]


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
