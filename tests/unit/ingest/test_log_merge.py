"""The merge of whole partitions by append time (`merge_partitions`), over a fake partition
read: it finishes for any size, partition count and skew, hands out every record once in log
order, and holds at most one read (at most a batch) a partition beside the batch it builds."""

from __future__ import annotations

import random

import pytest
from kafka import TopicPartition
from support.log_records import Rec

from provgraph.ingest.log_order import merge_partitions
from provgraph.ingest.ports import LogRecord

pytestmark = pytest.mark.unit


class FakeLog:
    """Partitions of records; each read hands out a random number of them, at most `most`."""

    def __init__(self, lengths: list[int], most: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.most = most
        self.parts: dict[TopicPartition, list[Rec]] = {}
        for p, length in enumerate(lengths):
            stamps = sorted(self.rng.randrange(10 * max(lengths) + 1) for _ in range(length))
            tp = TopicPartition("events", p)
            self.parts[tp] = [Rec(p, o, t) for o, t in enumerate(stamps)]
        self.held: dict[TopicPartition, int] = {tp: 0 for tp in self.parts}
        self.handed: dict[TopicPartition, int] = {tp: 0 for tp in self.parts}
        self.largest_hold = 0

    def spans(self) -> dict[TopicPartition, tuple[int, int]]:
        return {tp: (0, len(records)) for tp, records in self.parts.items()}

    def read(self, tp: TopicPartition, position: int, end: int) -> tuple[list[LogRecord], int]:
        assert position == self.held[tp], "a read starts where the last one ended"
        count = self.rng.randint(1, self.most)
        records = self.parts[tp][position : min(position + count, end)]
        self.held[tp] += len(records)
        in_merger = sum(self.held.values()) - sum(self.handed.values())
        self.largest_hold = max(self.largest_hold, in_merger)
        return list(records), position + len(records)

    def take(self, record: LogRecord) -> None:
        self.handed[TopicPartition(record.topic, record.partition)] += 1


def _merged(log: FakeLog, batch: int) -> tuple[list[LogRecord], list[int]]:
    out: list[LogRecord] = []
    sizes = []
    for chunk in merge_partitions(log.read, log.spans(), batch):
        sizes.append(len(chunk))
        for record in chunk:
            log.take(record)
        out.extend(chunk)
    return out, sizes


@pytest.mark.parametrize(
    ("lengths", "batch"),
    [
        ([200, 200, 200], 50),  # the smallest case that stopped after 350
        ([16_500, 16_400, 16_600, 16_500, 16_450, 16_550], 5000),  # the benchmark's log
        ([5000, 37, 0, 1], 9),  # heavy skew, an empty partition, a one-record partition
        ([0, 0, 0], 4),
        ([1000], 7),
        ([3, 900, 20, 0, 450], 1),
    ],
)
def test_every_record_once_in_log_order_in_full_batches(lengths: list[int], batch: int) -> None:
    log = FakeLog(lengths, most=batch, seed=sum(lengths) + batch)
    out, sizes = _merged(log, batch)
    expected = sorted(
        (r for records in log.parts.values() for r in records),
        key=lambda r: (r.timestamp, r.partition, r.offset),
    )
    assert out == expected
    assert all(size == batch for size in sizes[:-1])
    assert not sizes or 0 < sizes[-1] <= batch
    # one read a partition, plus the batch being built
    assert log.largest_hold <= batch * (len(lengths) + 1)


def test_reads_that_hand_out_fewer_records_than_asked_still_finish() -> None:
    log = FakeLog([3000, 2000, 1], most=3, seed=7)
    out, _ = _merged(log, 500)
    assert len(out) == 5001
    assert log.largest_hold <= 3 * 3 + 500


def test_a_span_starting_past_offset_zero_reads_from_its_beginning() -> None:
    log = FakeLog([100, 100], most=10, seed=3)
    spans = {tp: (40, end) for tp, (_, end) in log.spans().items()}
    log.held = dict.fromkeys(spans, 40)
    out = [r for chunk in merge_partitions(log.read, spans, 16) for r in chunk]
    assert sorted((r.partition, r.offset) for r in out) == [
        (p, o) for p in (0, 1) for o in range(40, 100)
    ]


def test_a_batch_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="batch must be at least 1"):
        next(merge_partitions(FakeLog([1], 1, 0).read, {}, 0))
