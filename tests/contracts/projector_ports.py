"""The contracts of the projector's event source and dead-letter sink ports.

One abstract test class per port; each adapter's test subclasses it: the fakes in the unit
tests (tests/unit/ingest/test_projector_ports_fakes.py), Kafka in the integration tests
(tests/integration/projector/test_projector_ports_kafka.py). The writer port's contract is in
tests/contracts/graph_writer.py.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from provgraph.ingest.ports import DeadLetterSink, EventSource, LogRecord, PartitionOffset
from provgraph.ingest.projection.ownership import OwnershipError
from provgraph.ingest.projector.rejections import EventConflict, OccurredInFuture, StoreRejected
from provgraph.schemas import (
    EventValidationError,
    FieldError,
    FutureSchemaVersionError,
    MalformedEventError,
    UnknownEventTypeError,
)
from provgraph.schemas.errors import ErrorCode

Letter = tuple[bytes | None, bytes | None, dict[str, bytes]]
"""A dead letter as stored: key, value and headers."""


@dataclass(frozen=True)
class Record:
    """A log record built by a test (the shape of a Kafka `ConsumerRecord`)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int = -1
    headers: tuple[tuple[str, bytes], ...] = ()


def seen(records: list[LogRecord]) -> list[tuple[int, int, bytes | None]]:
    """(partition, offset, value) of the records read, each once, sorted."""
    return sorted({(r.partition, r.offset, r.value) for r in records})


class EventSourceContract(ABC):
    """What every `EventSource` does; the adapter's topic has `PARTITIONS` empty partitions.

    Delivery is at least once: Kafka may announce the same assignment again at any time, and
    every partition it announces restarts from the committed offset unless `on_assigned`
    seeks. The projector seeks each time (to what Neo4j holds); these tests do the same.
    """

    PARTITIONS: ClassVar[int] = 3
    TIMEOUT_S: ClassVar[float] = 30.0

    @abstractmethod
    def source(self) -> EventSource:
        """A new member of the test's consumer group, on the test's topic."""

    @abstractmethod
    def append(
        self, partition: int, key: bytes, value: bytes, headers: tuple[tuple[str, bytes], ...] = ()
    ) -> None:
        """Write one record to `partition` of the test's topic (acknowledged on return)."""

    def fill(self, per_partition: int = 4) -> list[tuple[int, int, bytes]]:
        """`per_partition` records in every partition; their (partition, offset, value)."""
        written = []
        for partition in range(self.PARTITIONS):
            for offset in range(per_partition):
                value = f"{partition}/{offset}".encode()
                self.append(partition, f"k{partition}".encode(), value)
                written.append((partition, offset, value))
        return written

    def drain(self, source: EventSource) -> list[LogRecord]:
        """Poll until the source is caught up."""
        records: list[LogRecord] = []
        deadline = time.monotonic() + self.TIMEOUT_S
        while True:
            batch = source.poll()
            records += batch
            if not batch and source.caught_up():
                return records
            assert time.monotonic() < deadline, f"not caught up after {self.TIMEOUT_S}s"

    def subscribed(self, on_assigned: Callable[[list[int]], None] | None = None) -> EventSource:
        source = self.source()
        source.subscribe(on_assigned or (lambda _partitions: None))
        return source

    def test_a_member_alone_gets_every_partition_and_reads_every_record(self) -> None:
        written = self.fill()
        announced: list[list[int]] = []
        source = self.subscribed(announced.append)
        every = list(range(self.PARTITIONS))
        try:
            records = self.drain(source)
            assert announced and all(partitions == every for partitions in announced)
            assert source.assigned() == every
            assert seen(records) == written
            assert {(r.topic, r.key) for r in records if r.partition == 1} == {
                (source.topic, b"k1")
            }
        finally:
            source.close()

    def test_records_carry_their_log_time_and_headers(self) -> None:
        before = int(time.time() * 1000) - 60_000  # allows for a broker's clock a bit behind
        self.append(0, b"k0", b"with", (("provgraph-principal", b"principal:user:alice"),))
        self.append(0, b"k0", b"without")
        source = self.subscribed()
        try:
            records = sorted(self.drain(source), key=lambda r: r.offset)
        finally:
            source.close()
        assert [list(r.headers) for r in records] == [
            [("provgraph-principal", b"principal:user:alice")],
            [],
        ]
        first, second = (r.timestamp for r in records)
        assert before < first <= second  # the log's time, in milliseconds, in log order

    def test_assignments_are_announced_in_the_thread_that_polls(self) -> None:
        """`on_assigned` reads the graph's offsets, which may be slow: run inside the client's
        IO thread it would stop the heartbeats and get the member evicted from its group."""
        self.fill(per_partition=1)
        threads: list[threading.Thread] = []
        source = self.subscribed(lambda _partitions: threads.append(threading.current_thread()))
        try:
            self.drain(source)
            assert threads and set(threads) == {threading.current_thread()}
        finally:
            source.close()

    def test_seek_on_assignment_and_later_reads_from_there_and_none_is_the_beginning(
        self,
    ) -> None:
        written = self.fill()
        stored: dict[int, int | None] = {0: 2, 1: None, 2: 3}

        def seek(partitions: list[int]) -> None:
            for partition in partitions:
                source.seek(partition, stored[partition])

        source = self.subscribed(seek)
        try:
            first = seen(self.drain(source))
            assert first == [w for w in written if w[1] >= (stored[w[0]] or 0)]
            stored.update({0: 4, 1: 3, 2: None})
            source.seek(1, 3)
            source.seek(2, None)
            again = seen(self.drain(source))
            assert again == [w for w in written if (w[0], w[1]) == (1, 3) or w[0] == 2]
        finally:
            source.close()

    def test_caught_up_means_assigned_and_read_to_the_end(self) -> None:
        self.fill(per_partition=1)
        source = self.subscribed()
        try:
            assert not source.caught_up()  # nothing assigned before the first poll
            read = self.drain(source)
            assert source.caught_up()
            source.commit([PartitionOffset(r.topic, r.partition, r.offset) for r in read])
            self.append(1, b"k1", b"late")
            assert not source.caught_up()
            assert {r.value for r in self.drain(source)} == {b"late"}
            assert source.caught_up()
        finally:
            source.close()

    def test_a_new_member_resumes_after_the_committed_offsets(self) -> None:
        written = self.fill()
        first = self.subscribed()
        try:
            self.drain(first)
            topic = first.topic
            first.commit([PartitionOffset(topic, 0, 1), PartitionOffset(topic, 1, 3)])
        finally:
            first.close()
        second = self.subscribed()
        try:
            # Partition 0 resumes at offset 2, partition 1 is done, partition 2 starts over.
            expected = [w for w in written if (w[0] == 0 and w[1] >= 2) or w[0] == 2]
            assert seen(self.drain(second)) == expected
        finally:
            second.close()


class DeadLetterSinkContract(ABC):
    """What every `DeadLetterSink` does."""

    TOPIC: ClassVar[str] = "provgraph.events"

    @abstractmethod
    def sink(self) -> DeadLetterSink:
        """A new sink writing to the test's dead-letter store."""

    @abstractmethod
    def letters(self, count: int) -> list[Letter]:
        """What the store holds, once it holds `count` letters (or after a timeout)."""

    def test_every_poison_record_is_kept_with_where_it_came_from_and_why(self) -> None:
        stamped = (("provgraph-principal", b"principal:user:alice"),)
        bad = Record(self.TOPIC, 2, 17, b"key", b"\xffnot json", 1, stamped)
        empty = Record(self.TOPIC, 0, 3, None, b"{}")
        sink = self.sink()
        try:
            sink.send([(bad, ValueError("not JSON")), (empty, TypeError("x" * 5000))])
        finally:
            sink.close()
        letters = self.letters(2)
        assert [(key, value) for key, value, _ in letters] == [
            (b"key", b"\xffnot json"),
            (None, b"{}"),
        ]
        first, second = (headers for _, _, headers in letters)
        assert first == {
            "provgraph-principal": b"principal:user:alice",  # the record's own headers stay
            "source.topic": self.TOPIC.encode(),
            "source.partition": b"2",
            "source.offset": b"17",
            "provgraph-reason": b"contract",
            "provgraph-error": b"not JSON",
            "error.class": b"ValueError",
            "error.message": b"not JSON",
        }
        assert (second["error.class"], second["source.offset"]) == (b"TypeError", b"3")
        assert second["error.message"] == b"x" * 4096  # long messages are cut, values kept
        assert second["provgraph-error"] == b"x" * 4096

    def test_each_dead_letter_names_its_reason_and_its_error_on_one_line(self) -> None:
        def field(code: ErrorCode) -> list[FieldError]:
            return [FieldError("event_type", "line one\nline two", code)]

        errors: list[tuple[BaseException, bytes]] = [
            (MalformedEventError(field(ErrorCode.MALFORMED)), b"contract"),
            (EventValidationError(field(ErrorCode.WRONG_TYPE)), b"contract"),
            (RecursionError("maximum recursion depth exceeded"), b"contract"),
            (UnknownEventTypeError(field(ErrorCode.UNKNOWN_EVENT_TYPE)), b"unknown_type"),
            (
                FutureSchemaVersionError(field(ErrorCode.FUTURE_SCHEMA_VERSION)),
                b"unsupported_version",
            ),
            (StoreRejected("CypherTypeError: a map"), b"store_rejected"),
            (EventConflict("event_id e already stands for sha256:a"), b"conflict"),
            (OwnershipError("run:r belongs to project b"), b"ownership"),
            (OccurredInFuture("occurred_at is 1h ahead"), b"occurred_at_in_future"),
        ]
        poison = [(Record(self.TOPIC, 0, i, b"k", b"v"), e) for i, (e, _) in enumerate(errors)]
        sink = self.sink()
        try:
            sink.send(poison)  # type: ignore[arg-type]
        finally:
            sink.close()
        letters = self.letters(len(errors))
        assert [h["provgraph-reason"] for _, _, h in letters] == [code for _, code in errors]
        assert all(b"\n" not in h["provgraph-error"] for _, _, h in letters)
        assert letters[0][2]["provgraph-error"] == b"event_type: line one line two"

    def test_sending_nothing_stores_nothing(self) -> None:
        sink = self.sink()
        try:
            sink.send([])
        finally:
            sink.close()
        assert self.letters(0) == []
