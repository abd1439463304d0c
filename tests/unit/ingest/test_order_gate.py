"""`OrderGate`: what a live projector polled, released in the log's one order (append time,
ties by partition, each partition's order kept), never before an older record could still
arrive, whole append times at a time, whatever order and size the polls come in."""

from __future__ import annotations

import random

import pytest
from kafka import TopicPartition
from support.log_records import Rec

from provgraph.ingest.log_order import (
    NumberingAhead,
    OrderGate,
    bounds_before,
    in_log_order,
    times_after,
)

pytestmark = pytest.mark.unit


def keys(records: list[Rec]) -> list[tuple[int, int]]:
    return [(r.partition, r.offset) for r in records]


def test_a_record_waits_for_a_partition_that_may_still_hold_an_older_one() -> None:
    gate = OrderGate()
    gate.add([Rec(0, 0, 50)])
    assert gate.release({0, 1}, 10) == []  # partition 1 may hold something older
    assert gate.blocked({0, 1}) == [0, 1]  # 0 itself may get more at 50
    gate.add([Rec(1, 0, 20)])
    assert gate.release({0, 1}, 10) == []  # 20 first, but 1 may still get more at 20
    gate.add([Rec(1, 1, 60)])
    assert keys(gate.release({0, 1}, 10)) == [(1, 0)]  # 0 holds 50, 1 holds 60: 20 is first
    assert gate.blocked({0, 1}) == [0]
    gate.quiet(0, 51)
    assert keys(gate.release({0, 1}, 10)) == [(0, 0)]
    assert gate.blocked({0, 1}) == [0, 1]  # 0 is quiet before 51 only; 1 may get more at 60
    gate.quiet(0, 61)
    assert gate.blocked({0, 1}) == [1]
    gate.quiet(1, 61)
    assert keys(gate.release({0, 1}, 10)) == [(1, 1)]
    assert gate.held() == 0 and gate.blocked({0, 1}) == []


def test_quiet_means_before_that_time_only() -> None:
    gate = OrderGate()
    gate.add([Rec(0, 0, 100)])
    gate.quiet(0, 200)
    gate.quiet(1, 100)  # a record of 1 appended at 100 may still come: ties go to 0 first,
    assert keys(gate.release({0, 1}, 5)) == []  # but a later 100 on 1 must not be missed
    gate.quiet(1, 101)
    assert keys(gate.release({0, 1}, 5)) == [(0, 0)]
    gate.quiet(1, 50)  # an older statement never takes back a newer one
    gate.add([Rec(0, 1, 150)])
    assert keys(gate.release({0, 1}, 5)) == []  # 1 is quiet before 101 only


def test_one_append_time_is_released_whole_even_past_the_limit() -> None:
    gate = OrderGate()
    same = [Rec(p, o, 7) for p in (2, 0, 1) for o in range(3)]
    gate.add([*same, Rec(0, 3, 8), Rec(1, 3, 9), Rec(2, 3, 9)])
    for p in (0, 1, 2):
        gate.quiet(p, 10)
    first = gate.release({0, 1, 2}, 2)
    assert keys(first) == [(p, o) for p in (0, 1, 2) for o in range(3)]  # 9 records, limit 2
    assert keys(gate.release({0, 1, 2}, 2)) == [(0, 3), (1, 3), (2, 3)]


def test_unassigned_partitions_are_not_waited_on_and_drop_forgets() -> None:
    gate = OrderGate()
    gate.add([Rec(0, 0, 5), Rec(3, 0, 1)])
    gate.drop([3])
    assert gate.partitions() == {0}
    gate.quiet(0, 6)
    assert keys(gate.release({0}, 5)) == [(0, 0)]
    gate.quiet(1, 1000)
    gate.drop([1])
    gate.add([Rec(0, 1, 7)])
    gate.quiet(0, 8)
    assert gate.release({0, 1}, 5) == []  # what was known of 1 went with the drop


@pytest.mark.parametrize("seed", range(8))
def test_any_polling_gives_the_merge_of_the_whole_log(seed: int) -> None:
    """Polls of random partitions and sizes (a batch limit several times smaller than the
    log), each partition read to its end only at its last record, and what a partition holds
    past a batch forgotten and read again: the gate's output is the merge of the whole log,
    and nothing comes out early."""
    rng = random.Random(seed)
    log = {
        p: [Rec(p, o, t) for o, t in enumerate(sorted(rng.randrange(0, 60) for _ in range(40)))]
        for p in range(4)
    }
    expected = keys(in_log_order([r for lane in log.values() for r in lane], lambda r: r))
    gate, read, out = OrderGate(), {p: 0 for p in log}, []
    limit = 7
    while len(out) < sum(map(len, log.values())):
        p = rng.choice([q for q in log if read[q] < len(log[q])] or list(log))
        take = log[p][read[p] : read[p] + rng.randrange(1, 12)]
        read[p] += len(take)
        gate.add(take)
        for q in gate.blocked(set(log)):
            if read[q] == len(log[q]):
                gate.quiet(q, 10_000)
        released = gate.release(set(log), limit)
        for q in set(log) - set(gate.blocked(set(log))):  # a batch kept, the rest read again
            first = gate.trim(q, limit)
            if first is not None:
                read[q] = first
        for record in released:  # nothing released while an older record was unread
            assert all(
                (r.timestamp, r.partition) > (record.timestamp, record.partition)
                for q in log
                for r in log[q][read[q] :]
            )
        out.extend(released)
    assert keys(out) == expected
    assert gate.held() == 0


def test_trim_keeps_a_batch_says_where_to_read_again_and_forgets_the_end() -> None:
    gate = OrderGate()
    gate.add([Rec(0, o, 10 + o) for o in range(20)])
    gate.quiet(0, 100)
    assert gate.trim(0, 25) is None and gate.held(0) == 20
    assert gate.trim(0, 5) == 5 and gate.held(0) == 5
    gate.add([Rec(1, 0, 12)])
    gate.quiet(1, 100)
    # 0 is no longer read to its end: its records after 14 may come back, so 14 waits
    released = gate.release({0, 1}, 100)
    assert keys(released) == [(0, 0), (0, 1), (0, 2), (1, 0), (0, 3)]
    assert gate.blocked({0, 1}) == [0]


def test_trim_never_splits_the_next_append_time() -> None:
    """One millisecond holding more records than a batch, on every partition: trimming keeps
    them all, so the whole append time can be released (else each partition would be read
    again while the gate waits on it, for ever)."""
    gate = OrderGate()
    gate.add([Rec(p, o, 5) for p in (0, 1) for o in range(8)] + [Rec(0, 8, 6), Rec(0, 9, 6)])
    assert gate.trim(0, 3) == 9 and gate.held(0) == 9  # the eight at 5 and the first at 6 stay
    assert gate.trim(1, 3) is None and gate.held(1) == 8
    gate.quiet(0, 6)
    gate.quiet(1, 6)
    assert len(gate.release({0, 1}, 3)) == 16


def test_trim_keeps_the_record_that_shows_a_partition_moved_past_the_next_time() -> None:
    """Three partitions, each with more records at the next append time than a batch and
    then later ones: trimming keeps the first later record of each, so no partition is waited
    on again after a trim, and the time goes out."""
    gate = OrderGate()
    for p in (0, 1, 2):
        gate.add([Rec(p, o, 587) for o in range(8)] + [Rec(p, 8, 588), Rec(p, 9, 589)])
    assert gate.blocked({0, 1, 2}) == []
    assert [gate.trim(p, 7) for p in (0, 1, 2)] == [9, 9, 9]  # the 589s go, the 588s stay
    assert gate.blocked({0, 1, 2}) == []
    assert len(gate.release({0, 1, 2}, 7)) == 24


def test_a_barred_record_stops_the_release_within_its_append_time_and_is_the_head() -> None:
    gate = OrderGate()
    gate.add([Rec(0, 0, 5), Rec(1, 0, 5), Rec(2, 0, 5), Rec(0, 1, 6), Rec(1, 1, 9), Rec(2, 1, 9)])
    for p in (0, 1, 2):
        gate.quiet(p, 10)
    barred = {(1, 0), (2, 1)}

    def bar(record: Rec) -> bool:
        return (record.partition, record.offset) in barred

    assert keys(gate.release({0, 1, 2}, 50, bar)) == [(0, 0)]  # 2@5 waits behind 1@5
    assert keys([gate.head()]) == [(1, 0)]
    barred.discard((1, 0))
    assert keys(gate.release({0, 1, 2}, 50, bar)) == [(1, 0), (2, 0), (0, 1), (1, 1)]
    assert keys([gate.head()]) == [(2, 1)] and gate.held() == 1
    assert keys(gate.release({0, 1, 2}, 50)) == [(2, 1)]  # no bar
    assert gate.head() is None


def test_a_bar_on_many_records_holds_them_all_until_lifted() -> None:
    gate = OrderGate()
    records = [Rec(p, o, 10 * o + p) for o in range(30) for p in (0, 1)]
    gate.add(records)
    gate.quiet(0, 1000)
    gate.quiet(1, 1000)
    out: list[Rec] = []
    for cleared in range(0, 400, 7):  # a bar lifted bit by bit, batches of 4
        while batch := gate.release({0, 1}, 4, lambda r, c=cleared: r.timestamp > c):
            assert all(r.timestamp <= cleared for r in batch)
            out += batch
    assert keys(out) == keys(in_log_order(records, lambda r: r))


def test_times_after_puts_a_lower_partitions_ties_before() -> None:
    assert times_after(100, 2, [0, 1, 3]) == {0: 101, 1: 101, 3: 100}
    assert times_after(-1, 1, [0, 2]) == {0: 0, 2: 0}  # a record without a time


def test_bounds_before_are_the_first_offsets_after_or_the_ends_of_quiet_partitions() -> None:
    first = {0: 10, 1: None, 2: None}
    assert bounds_before(first, {1: 7, 2: 0}, 500, 1000) == {0: 10, 1: 7, 2: 0}
    # records may still be appended before a record of 1000: the ends are no bounds
    assert bounds_before(first, {1: 7, 2: 0}, 1000, 1000) == {0: 10, 1: None, 2: None}
    assert bounds_before(first, {}, 500, 1000) == {0: 10, 1: None, 2: None}  # ends not read


class Log:
    """Partitions of records whose value says whether they may number (b"n") or not, read
    like `KafkaPartitionReader.read`, whose position after a read may lie past its end (the
    records fetched beyond it are not handed out)."""

    def __init__(self, values: dict[int, bytes]) -> None:
        self.values = values
        self.reads: list[tuple[int, int, int]] = []

    def read(self, tp: TopicPartition, position: int, end: int) -> tuple[list[Rec], int]:
        self.reads.append((tp.partition, position, end))
        values = self.values[tp.partition]
        fetched = range(position, min(position + 3, len(values)))  # three records a fetch
        got = [Rec(tp.partition, o, o, value=values[o : o + 1]) for o in fetched if o < end]
        return got, fetched.stop


def may(record: Rec) -> bool:
    return record.value == b"n"


def test_numbering_ahead_waits_only_on_numbering_records_not_applied_below_the_bound() -> None:
    log = Log({0: b"....n.....n...", 1: b"......"})
    ahead = NumberingAhead("events", log.read, may)
    assert ahead.pending({0: 4, 1: 6}, {}, 100) == []  # 0..3 and 0..5 number nothing
    assert ahead.pending({0: 5, 1: 6}, {}, 100) == [0]  # 4 numbers, not applied
    assert ahead.pending({0: 5, 1: 6}, {0: 3}, 100) == [0]
    assert ahead.pending({0: 10, 1: 6}, {0: 4}, 100) == []  # applied; 5..9 number nothing
    assert ahead.pending({0: 11, 1: 6}, {0: 4}, 100) == [0]
    assert ahead.pending({0: 14, 1: None}, {0: 10}, 100) == [1]  # None: not known
    # what was read is not read again
    ranges = [(p, start) for p, start, _ in log.reads]
    assert len(ranges) == len(set(ranges))


def test_numbering_ahead_reads_at_most_about_its_budget_a_look() -> None:
    log = Log({0: b"." * 100 + b"n"})  # ten times the budget before the numbering record
    ahead = NumberingAhead("events", log.read, may)
    per_look = []
    for _ in range(15):
        before = len(log.reads)
        assert ahead.pending({0: 101}, {}, 10) == [0]  # not read to 100 yet, then 100 numbers
        per_look.append(len(log.reads) - before)
    assert max(per_look) * 3 <= 10 + 3 - 1  # stops once the budget is reached
    assert per_look[-1] == 0 and sum(per_look) * 3 >= 101  # read once, to the record
    assert ahead.pending({0: 100}, {}, 10) == []  # below it, nothing numbers


def test_numbering_ahead_given_nothing_by_a_read_stays_pending_without_looping() -> None:
    calls = []

    def read(tp: TopicPartition, position: int, end: int) -> tuple[list[Rec], int]:
        calls.append(position)
        return [], position  # a broker that hands nothing over

    ahead = NumberingAhead("events", read, may)
    assert ahead.pending({0: 50}, {0: 9}, 100) == [0]
    assert calls == [10]
