"""One order for the whole log: partitions merged by the broker's append time.

Kafka orders records within a partition only. The ownership screen needs one order across
partitions (the first write of a run id claims it), and the projector, `replay` and `verify`
must take the same one: were `replay` to read partition by partition, a record written
straight to Kafka into a low partition would be judged before the real owner's older claim in a
higher one, and the rebuilt graph would hand it what the live projector refused. So every
reader merges the partitions by the records' timestamps (the broker's append time on the event
topic), ties by partition number, and never reorders a partition: `in_log_order` within one
poll batch, `read_log_in_order` over the whole log.
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, TypeVar

from kafka import KafkaConsumer, TopicPartition

from provgraph.core.errors import UnavailableError
from provgraph.ingest.ports import LogRecord
from provgraph.ingest.settings import IngestSettings

T = TypeVar("T")


def in_log_order(items: Sequence[T], record: Callable[[T], LogRecord]) -> list[T]:
    """`items` (each of which `record` maps to its log record) merged across partitions by the
    records' timestamps, ties by partition, each partition's own order kept."""
    lanes: dict[tuple[str, int], list[T]] = {}
    for item in items:
        r = record(item)
        lanes.setdefault((r.topic, r.partition), []).append(item)
    ordered = [lanes[key] for key in sorted(lanes)]
    return list(heapq.merge(*ordered, key=lambda item: record(item).timestamp))


def read_log_in_order(
    settings: IngestSettings, batch: int = 5000, *, stall_s: float | None = None
) -> Iterator[list[LogRecord]]:
    """Every record of the event log from its beginning to its end now, in batches of up to
    `batch`, in log order: a record is handed out only once every partition with records left
    shows its next one. Records appended after the start are not read. At most `batch` records
    a partition are held; `stall_s` (default: the settings') without a record is an error."""
    consumer = KafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False, group_id=None
    )
    try:
        tps = [
            TopicPartition(settings.events_topic, p)
            for p in sorted(consumer.partitions_for_topic(settings.events_topic) or ())
        ]
        begins, ends = consumer.beginning_offsets(tps), consumer.end_offsets(tps)
        spans = {tp: (begins[tp], ends[tp]) for tp in tps}
        reader = KafkaPartitionReader(
            consumer, batch, settings.log_read_stall_s if stall_s is None else stall_s
        )
        yield from merge_partitions(reader.read, spans, batch)
    finally:
        consumer.close(autocommit=False)


class PartitionRead(Protocol):
    """Records of one partition from `position` (none at or past `end`), and the position after
    them; at least one record unless the position after them reached `end`."""

    def __call__(
        self, tp: TopicPartition, position: int, end: int
    ) -> tuple[list[LogRecord], int]: ...


def merge_partitions(
    read: PartitionRead, spans: dict[TopicPartition, tuple[int, int]], batch: int
) -> Iterator[list[LogRecord]]:
    """Batches of up to `batch` records of every partition's `[begin, end)` span, merged by
    timestamp, ties by partition; a partition is read again only once its buffer is empty."""
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    tps = sorted(spans, key=lambda tp: (tp.topic, tp.partition))
    positions = {tp: spans[tp][0] for tp in tps}
    buffers: dict[TopicPartition, deque[LogRecord]] = {tp: deque() for tp in tps}
    out: list[LogRecord] = []
    while True:
        for tp in tps:
            if not buffers[tp] and positions[tp] < spans[tp][1]:
                records, positions[tp] = read(tp, positions[tp], spans[tp][1])
                buffers[tp].extend(records)
        heads = [tp for tp in tps if buffers[tp]]
        if not heads:
            break
        first = min(heads, key=lambda tp: (buffers[tp][0].timestamp, tp.partition))
        out.append(buffers[first].popleft())
        if len(out) == batch:
            yield out
            out = []
    if out:
        yield out


class KafkaPartitionReader:
    """Reads one partition at a time with one consumer. Only the partition asked for is
    assigned, so nothing unwanted is fetched and no pause/resume state is involved (with
    kafka-python 3.0, records parked for a paused partition could stay parked after it was
    resumed, and the partition was never fetched again)."""

    def __init__(self, consumer: KafkaConsumer, batch: int, stall_s: float) -> None:
        self.consumer, self.batch, self.stall_s = consumer, batch, stall_s
        self.current: TopicPartition | None = None

    def read(self, tp: TopicPartition, position: int, end: int) -> tuple[list[LogRecord], int]:
        """Up to `batch` records of `tp` from `position`, below `end`, and the position after."""
        if self.current != tp or int(self.consumer.position(tp)) != position:
            self.consumer.assign([tp])
            self.consumer.seek(tp, position)
            self.current = tp
        records: list[LogRecord] = []
        moved = time.monotonic()
        while len(records) < self.batch and position < end:
            polled = self.consumer.poll(timeout_ms=500, max_records=self.batch - len(records))
            got = [r for r in polled.get(tp, ()) if r.offset < end]
            records.extend(got)
            before, position = position, int(self.consumer.position(tp))
            if records and not got:
                break  # what was fetched is handed out; the next read fetches more
            if position != before:
                moved = time.monotonic()
            elif time.monotonic() - moved > self.stall_s:
                raise LogReadError(
                    f"the event log stalled: partition {tp.partition} of {tp.topic!r} gave no "
                    f"record for {self.stall_s:.0f}s at offset {position} of {end} "
                    "(is Kafka reachable?)",
                    topic=tp.topic,
                    partition=tp.partition,
                    offset=position,
                    end=end,
                )
        return records, position


class LogReadError(UnavailableError):
    """Reading the whole log stopped: a partition gave no record for too long."""
