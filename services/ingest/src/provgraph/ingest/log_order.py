"""One order for the whole log: partitions merged by the broker's append time.

Kafka orders records within a partition only. The ownership screen needs one order across
partitions (the first write of a run id claims it), and the projector, `replay` and `verify`
must take the same one: were `replay` to read partition by partition, a record written
straight to Kafka into a low partition would be judged before the real owner's older claim in a
higher one, and the rebuilt graph would hand it what the live projector refused. So every
reader merges the partitions by the records' timestamps (the broker's append time on the event
topic), ties by partition number, and never reorders a partition: `in_log_order` within one
poll batch, `merge_partitions` over the whole log (`tools.log_reader` reads it from Kafka).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, TypeVar

from kafka import TopicPartition

from provgraph.ingest.ports import LogRecord

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
