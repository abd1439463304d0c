"""One order for the whole log: partitions merged by the broker's append time.

Kafka orders records within a partition only. The ownership screen needs one order across
partitions (the first write of a run id claims it), and the projector, `replay` and `verify`
must take the same one: were `replay` to read partition by partition, a record written
straight to Kafka into a low partition would be judged before the real owner's older claim in a
higher one, and the rebuilt graph would hand it what the live projector refused. So every
reader merges the partitions by the records' timestamps (the broker's append time on the event
topic), ties by partition number, and never reorders a partition: `in_log_order` within one
poll batch, `merge_partitions` over the whole log (`tools.log_reader` reads it from Kafka),
and `OrderGate` between the live projector's polls, which fetch partitions unevenly.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
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


class OrderGate:
    """The records a live projector has polled, released in the log's one order.

    Kafka fetches partitions unevenly: a poll can return a record of one partition before an
    older record of another (fetched later, or held back by the poll's record limit), and a
    screen that judged the newer one first would not judge as `replay` and `verify` do. The
    gate holds what was polled and releases a record only when no record that the merge puts
    before it can still arrive: every other partition has a later record held, or was read to
    its end at a time after the record (`quiet`: a record the broker appends later gets a
    later append time). Records of one append time are released together, in one batch, so a
    request's events appended in the same millisecond are judged side by side; a caller may
    bar a record (`release`'s `barred`: a group member's numbering record while another
    member has one to apply before it), and nothing goes past it.

    Pure: the source tells it what was polled, which partitions are assigned and when a
    partition was last read to its end; it never reads the clock.
    """

    def __init__(self) -> None:
        self._held: dict[int, deque[LogRecord]] = {}
        self._quiet: dict[int, int] = {}  # partition -> time (ms) before which all was read

    def add(self, records: Iterable[LogRecord]) -> None:
        """Hold polled records (each partition's in the order polled)."""
        for record in records:
            self._held.setdefault(record.partition, deque()).append(record)

    def held(self, partition: int | None = None) -> int:
        """How many records are held (of one partition, or all)."""
        if partition is not None:
            return len(self._held.get(partition, ()))
        return sum(len(lane) for lane in self._held.values())

    def describe(self) -> dict[int, tuple[int, int, int]]:
        """Per partition held: (records, first append time, last append time)."""
        return {
            p: (len(lane), lane[0].timestamp, lane[-1].timestamp)
            for p, lane in self._held.items()
            if lane
        }

    def quiet_times(self) -> dict[int, int]:
        """Per partition read to its end: the time before which everything was read."""
        return dict(self._quiet)

    def partitions(self) -> set[int]:
        """The partitions some record is held of."""
        return {p for p, lane in self._held.items() if lane}

    def quiet(self, partition: int, before_ms: int) -> None:
        """`partition` was read to its end: whatever it gets later has an append time at or
        after `before_ms`."""
        self._quiet[partition] = max(before_ms, self._quiet.get(partition, before_ms))

    def trim(self, partition: int, keep: int) -> int | None:
        """Keep the first `keep` records held of `partition` (at least every one of the next
        append time to release and the first after it) and forget the rest, and that it was
        read to its end (it no longer is); the offset of the first record forgotten (to be read
        again from there), None when nothing was."""
        lane = self._held.get(partition)
        at = self._next_time()
        if lane is not None and at is not None:
            # the next append time whole, and the first record after it: that record is what
            # tells the gate this partition has nothing more at that time (were it forgotten,
            # the partition would be waited on, read again, and trimmed again, for ever)
            through = sum(1 for record in lane if record.timestamp <= at)
            keep = max(keep, through + 1)
        if lane is None or len(lane) <= keep:
            return None
        first = lane[keep].offset
        self._held[partition] = deque(itertools.islice(lane, keep))
        self._quiet.pop(partition, None)
        return first

    def drop(self, partitions: Collection[int]) -> None:
        """Forget what is held of `partitions` and what was known of them (a seek, a revoke)."""
        for partition in partitions:
            self._held.pop(partition, None)
            self._quiet.pop(partition, None)

    def release(
        self,
        assigned: Collection[int],
        limit: int,
        barred: Callable[[LogRecord], bool] | None = None,
    ) -> list[LogRecord]:
        """Records in log order, whole append times at a time, until at least `limit` or the
        next append time may still miss a record of an assigned partition; and never past a
        record `barred` says must wait (it is `head` then: what the caller looks into)."""
        out: list[LogRecord] = []
        stopped = False
        while len(out) < limit and not stopped:
            at = self._next_time()
            if at is None or self.waiting_on(assigned, at):
                break
            for p in sorted(self._held):  # ties by partition, each partition's order kept
                lane = self._held[p]
                while lane and lane[0].timestamp == at:
                    if barred is not None and barred(lane[0]):
                        stopped = True
                        break
                    out.append(lane.popleft())
                if stopped:
                    break
        self._held = {p: lane for p, lane in self._held.items() if lane}
        return out

    def head(self) -> LogRecord | None:
        """The record held that the log's order puts first (None when none is held)."""
        lanes = [(lane[0].timestamp, p) for p, lane in self._held.items() if lane]
        return self._held[min(lanes)[1]][0] if lanes else None

    def blocked(self, assigned: Collection[int]) -> list[int]:
        """The assigned partitions the next append time waits on (empty: nothing waits)."""
        at = self._next_time()
        return [] if at is None else self.waiting_on(assigned, at)

    def waiting_on(self, assigned: Collection[int], at: int) -> list[int]:
        """The assigned partitions that may still get a record appended at or before `at`."""
        return sorted(
            p
            for p in assigned
            if self._quiet.get(p, -1) <= at
            and (not self._held.get(p) or self._held[p][-1].timestamp <= at)
        )

    def _next_time(self) -> int | None:
        heads = [lane[0].timestamp for lane in self._held.values() if lane]
        return min(heads) if heads else None


def times_after(at: int, partition: int, others: Collection[int]) -> dict[int, int]:
    """For each of `others`: the append time from which its records come after the record of
    `partition` appended at `at` in the log's order (ties by partition: a lower partition's
    records of that same time come before it)."""
    return {p: max(0, at + 1 if p < partition else at) for p in others}


def bounds_before(
    first_after: Mapping[int, int | None], ends: Mapping[int, int], at: int, quiet_ms: int
) -> dict[int, int | None]:
    """For each of the other partitions, the offset below which its records come before a
    record appended at `at` in the log's order, given its first offset at or after its
    `times_after` (None: it holds no record that late), the end offsets read (where read), and
    a time before which everything the broker appends was appended (`quiet_ms`). Holding no
    record that late, its end is the bound when nothing it gets later can come before
    (`at` < `quiet_ms`); None when that is not known."""
    return {
        p: first if first is not None else ends.get(p) if at < quiet_ms else None
        for p, first in first_after.items()
    }


class NumberingAhead:
    """What one member of a projector group knows of the records that may number something
    (`may`) on the partitions other members hold, read from the log with `read`: for each, the
    first such record at or after the offset it last asked from, found by reading forward once
    (the log never changes, so what was read is never read again).

    A member lets a numbering record go only when no partition of another member still has
    such a record to apply before it (`pending`): the one order in which numbers are given.
    """

    def __init__(self, topic: str, read: PartitionRead, may: Callable[[LogRecord], bool]) -> None:
        self._topic, self._read, self._may = topic, read, may
        # partition -> (position read up to, offset of the first such record found, if any)
        self._seen: dict[int, tuple[int, int | None]] = {}

    def pending(
        self, bounds: Mapping[int, int | None], applied: Mapping[int, int], budget: int
    ) -> list[int]:
        """The partitions of `bounds` that may still have a numbering record to apply below
        their bound (None: unknown, so pending), reading at most about `budget` records of
        each; `applied` holds the last offset applied of each (absent: none)."""
        return sorted(
            p
            for p, bound in bounds.items()
            if bound is None or self._numbering_below(p, applied.get(p, -1) + 1, bound, budget)
        )

    def forget(self, partitions: Collection[int]) -> None:
        """Forget what was read of `partitions` (none of them is another member's now)."""
        for p in partitions:
            self._seen.pop(p, None)

    def _numbering_below(self, p: int, start: int, bound: int, budget: int) -> bool:
        position, found = self._seen.get(p, (start, None))
        if found is not None and found < start:  # applied since: read on after it
            found = None
        position = max(position, start)
        read = 0
        tp = TopicPartition(self._topic, p)
        while found is None and position < bound and read < budget:
            records, after = self._read(tp, position, bound)
            if not records and after <= position:
                break  # nothing came: still pending, looked at again later
            read += len(records)
            for record in records:
                if self._may(record):
                    found, after = record.offset, record.offset + 1
                    break
            # a read may fetch past the bound (its position then beyond records not handed out)
            position = min(after, bound)
        self._seen[p] = (position, found)
        return found < bound if found is not None else position < bound
