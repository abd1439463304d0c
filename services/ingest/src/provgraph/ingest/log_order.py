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
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from kafka import KafkaConsumer, TopicPartition

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


def read_log_in_order(settings: IngestSettings, batch: int = 5000) -> Iterator[list[LogRecord]]:
    """Every record of the event log from offset 0 to its end now, in batches, in log order:
    a record is handed out only once every partition with records left shows its next one.
    A partition far ahead of the others is paused, so memory stays near `batch` per partition."""
    consumer = KafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False, group_id=None
    )
    try:
        tps = [
            TopicPartition(settings.events_topic, p)
            for p in sorted(consumer.partitions_for_topic(settings.events_topic) or ())
        ]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        merger = _Merger(consumer, tps, consumer.end_offsets(tps), batch)
        while out := merger.next_batch():
            yield out
    finally:
        consumer.close(autocommit=False)


class _Merger:
    """Per-partition buffers of one consumer, drained smallest timestamp first."""

    def __init__(
        self,
        consumer: KafkaConsumer,
        tps: list[TopicPartition],
        ends: dict[TopicPartition, int],
        batch: int,
    ) -> None:
        self.consumer, self.tps, self.ends, self.batch = consumer, tps, ends, batch
        self.buffers: dict[TopicPartition, deque[LogRecord]] = {tp: deque() for tp in tps}

    def _unread(self, tp: TopicPartition) -> bool:
        return int(self.consumer.position(tp)) < self.ends[tp]

    def _blocked(self) -> bool:
        """True while some partition with records left has none buffered."""
        return any(not self.buffers[tp] and self._unread(tp) for tp in self.tps)

    def _fill(self) -> None:
        while self._blocked():
            full = [tp for tp in self.tps if len(self.buffers[tp]) >= self.batch]
            self.consumer.pause(*full)
            self.consumer.resume(*[tp for tp in self.tps if tp not in full])
            polled = self.consumer.poll(timeout_ms=1000, max_records=self.batch)
            for tp, records in polled.items():
                self.buffers[tp].extend(r for r in records if r.offset < self.ends[tp])

    def next_batch(self) -> list[LogRecord]:
        """Up to `batch` records in log order; empty once the whole log was handed out."""
        out: list[LogRecord] = []
        while len(out) < self.batch:
            self._fill()
            heads = [tp for tp in self.tps if self.buffers[tp]]
            if not heads:
                break
            first = min(heads, key=lambda tp: (self.buffers[tp][0].timestamp, tp.partition))
            out.append(self.buffers[first].popleft())
        return out
