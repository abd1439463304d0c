"""One bad record never stops projection: the loop on fakes of its ports, with records that
the contract, the fold or the store refuse, and copies of an event_id with another payload.

Each refused record is dead-lettered with its reason, before the offsets move past it; every
other record is applied as the in-memory fold of the log says; the loop keeps going.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from contracts.projector_ports import Record
from neo4j.exceptions import ServiceUnavailable
from projector_fakes import (
    FakeDeadLetters,
    FakeEventSource,
    FakeLog,
    RecordingStop,
    folded,
    log_time,
)
from support.projection_story import Story
from support.projection_workload import Workload

from provgraph.ingest.ports import PartitionOffset, Poison
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector.batch import apply_batch, parse_records
from provgraph.ingest.projector.loop import Projector, Stopped
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, event_hash

PROJECT = "p"
SETTINGS = IngestSettings(projector_backoff_initial_s=0.5, projector_backoff_max_s=2.0)


class RefusingWriter(MemoryGraph):
    """The in-memory graph, refusing (as a store would) every batch holding one of `refused`
    event ids with `error`; it notes the offsets each successful write stored."""

    def __init__(self, refused: set[str], error: Exception) -> None:
        super().__init__()
        self.refused, self.error = refused, error
        self.writes: list[tuple[int, list[PartitionOffset]]] = []

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        if any(c.record.event_id in self.refused for c in changes):
            raise self.error
        self.writes.append((len(changes), list(offsets)))
        return super().write(changes, offsets)


class WatchedDeadLetters(FakeDeadLetters):
    """Dead letters that note, per letter, the offsets the writer held when it was stored."""

    def __init__(self, writer: MemoryGraph, topic: str) -> None:
        super().__init__()
        self.writer, self.topic = writer, topic
        self.stored_then: list[dict[int, int]] = []

    def send(self, poison: Poison) -> None:
        super().send(poison)
        self.stored_then += [self.writer.read_offsets(self.topic) for _ in poison]


def fill(log: FakeLog, events: list[Event]) -> None:
    for i, event in enumerate(events):
        log.append(i % len(log.partitions), event.kafka_key(), event.to_json_bytes())


def run(
    log: FakeLog, writer: MemoryGraph, max_records: int = 4
) -> tuple[Projector, WatchedDeadLetters]:
    letters = WatchedDeadLetters(writer, log.topic)
    loop = Projector(SETTINGS, FakeEventSource(log, max_records), writer, letters)
    loop.run_until_idle(timeout_s=5)
    return loop, letters


def reasons(letters: FakeDeadLetters) -> list[tuple[bytes | None, bytes]]:
    return [(value, h["provgraph-reason"]) for _, value, h in letters.letters]


def assert_everything_else_applied(log: FakeLog, writer: MemoryGraph, bad: set[bytes]) -> None:
    assert writer.canonical(PROJECT) == folded(log, lambda r: r.value in bad).canonical(PROJECT)
    ends = {p: len(records) - 1 for p, records in enumerate(log.partitions) if records}
    assert writer.read_offsets(log.topic) == ends
    assert log.committed == {p: end + 1 for p, end in ends.items()}


@pytest.mark.parametrize(
    "error",
    [
        OverflowError("Python int too large to convert to C long"),  # the driver's encoder
        ValueError("Integer out of bounds"),
        TypeError("Values of type <class 'object'> are not supported"),
        RuntimeError("Neo.ClientError.Statement.TypeError: Property values can only be ..."),
    ],
)
def test_a_record_the_store_refuses_is_isolated_dead_lettered_and_the_rest_applied(
    error: Exception,
) -> None:
    log, events = FakeLog(), Workload(PROJECT, 21).build(runs=4, datasets=2)
    fill(log, events)
    chosen = [events[5], events[17]]  # in different batches and partitions
    writer = RefusingWriter({str(e.event_id) for e in chosen}, error)
    loop, letters = run(log, writer)
    bad = {e.to_json_bytes() for e in chosen}
    assert reasons(letters) == [(e.to_json_bytes(), b"store_rejected") for e in chosen]
    assert all(str(error).encode()[:40] in h["provgraph-error"] for _, _, h in letters.letters)
    assert_everything_else_applied(log, writer, bad)
    assert (loop.stats.applied, loop.stats.dead_lettered) == (len(events) - 2, 2)
    for (_, _, headers), held in zip(letters.letters, letters.stored_then, strict=True):
        partition, offset = int(headers["source.partition"]), int(headers["source.offset"])
        assert held.get(partition, -1) < offset  # stored before the offsets moved past it


def test_a_batch_of_refused_records_leaves_nothing_of_them_and_isolation_is_logarithmic() -> None:
    log, events = FakeLog(), Workload(PROJECT, 22).build(runs=6, datasets=2)
    fill(log, events)
    writer = RefusingWriter({str(events[9].event_id)}, ValueError("refused"))
    run(log, writer, max_records=len(events))  # one batch
    # One failed write, then halves down to the one record: about 2 log2(n) writes, not n.
    assert len(writer.writes) <= 2 * len(events).bit_length() + 1
    assert_everything_else_applied(log, writer, {events[9].to_json_bytes()})


def test_another_payload_under_an_event_id_is_a_conflict_whatever_the_batching() -> None:
    s = Story(PROJECT)
    first = s.completed(5, 2)
    other = first.model_copy(update={"actor": "user:mallory"})
    late = first.model_copy(update={"actor": "user:eve"})
    events = [s.started(), first, first, other, s.checkpoint_saved(3, 4), late]
    graphs = []
    for max_records in (1, 2, 3, len(events)):
        # One partition (the copies share a key, so they do) and the same log times each time.
        log = FakeLog(partitions=[[]], clock_ms=1714525200000)
        fill(log, events)
        writer = MemoryGraph()
        _, letters = run(log, writer, max_records)
        assert reasons(letters) == [
            (other.to_json_bytes(), b"conflict"),
            (late.to_json_bytes(), b"conflict"),
        ]
        assert writer.events[str(first.event_id)].payload_hash == event_hash(first)
        graphs.append(writer.canonical(PROJECT))
    assert all(graph == graphs[0] for graph in graphs)


def test_an_event_dated_beyond_the_clock_skew_after_its_log_time_is_dead_lettered() -> None:
    s = Story(PROJECT)
    log = FakeLog(partitions=[[]], clock_ms=1714521600000)  # 2024-05-01T00:00:00Z
    at_limit, too_far = s.completed(5, 2), s.completed(6, 3)  # skew 300 s: 5 min is the limit
    fill(log, [s.started(), at_limit, too_far])
    writer = MemoryGraph()
    _, letters = run(log, writer)
    assert reasons(letters) == [(too_far.to_json_bytes(), b"occurred_at_in_future")]
    assert b"after the log received" in letters.letters[0][2]["provgraph-error"]
    assert set(writer.events) == {str(s.event_id(1)), str(s.event_id(2))}


def test_unknown_types_and_newer_schema_versions_are_parked_with_their_own_reasons() -> None:
    s = Story(PROJECT)
    started = json.loads(s.started().to_json_bytes())
    unknown = json.dumps({**started, "event_type": "run.teleported"}).encode()
    newer = json.dumps({**started, "schema_version": 99}).encode()
    log = FakeLog()
    fill(log, [s.completed(5, 2)])
    log.append(1, b"k", unknown)
    log.append(2, b"k", newer)
    writer = MemoryGraph()
    _, letters = run(log, writer)
    assert reasons(letters) == [(unknown, b"unknown_type"), (newer, b"unsupported_version")]
    assert set(writer.events) == {str(s.event_id(2))}


def _deep(event: Event, depth: int) -> bytes:
    text = event.to_json_bytes().decode()
    return text.replace('"lr":0.1', '"lr":' + "[" * depth + "]" * depth).encode()


def test_records_the_contract_or_the_parser_cannot_take_never_stop_the_loop() -> None:
    """Real payloads that once stopped projection: each is dead-lettered (by the contract or,
    if the contract lets it through, by the store check), and everything after is applied."""
    s = Story(PROJECT)
    text = s.started().to_json_bytes().decode()
    hostile = [
        text.replace('"lr":0.1', '"lr":' + str(2**70)).encode(),  # beyond 64 bits
        text.replace("2024-05-01T00:00:00Z", "9999-12-31T23:59:59-01:00").encode(),  # edge
        _deep(s.started(), 100_000),  # deeper than the JSON parser's recursion limit
        b"\xff\xfe not even text",
    ]
    log = FakeLog()
    for value in hostile:
        log.append(0, b"hostile", value)
    fill(log, [s.started(), s.completed(5, 2)])
    writer = MemoryGraph()
    loop, letters = run(log, writer)
    assert [value for value, _ in reasons(letters)] == hostile
    assert {reason for _, reason in reasons(letters)} <= {b"contract", b"store_rejected"}
    assert_everything_else_applied(log, writer, set(hostile))
    assert loop.stats.applied == 2


def test_the_log_time_and_the_principal_reach_the_applied_event() -> None:
    s = Story(PROJECT)
    log = FakeLog(partitions=[[]])
    started = s.started()
    stamped = log.append(0, b"k", started.to_json_bytes(), (("provgraph-principal", b"u:a"),))
    writer = MemoryGraph()
    run(log, writer)
    record = writer.events[str(started.event_id)]
    assert (record.logged_at, record.principal) == (log_time(stamped), "u:a")
    assert record.payload_hash == event_hash(started)


def test_a_stop_while_isolating_is_not_taken_for_a_refused_record() -> None:
    class DownAfterRefusal(RefusingWriter):
        def write(
            self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
        ) -> int:
            if len(changes) < 4:
                raise ServiceUnavailable("gone")
            return super().write(changes, offsets)

    log, events = FakeLog(partitions=[[]]), Workload(PROJECT, 23).build(runs=1)
    fill(log, events)
    writer = DownAfterRefusal({str(events[0].event_id)}, ValueError("refused"))
    letters = FakeDeadLetters()
    loop = Projector(SETTINGS, FakeEventSource(log, 4), writer, letters, stop=RecordingStop(2))
    with pytest.raises(Stopped):
        loop.step()
    assert (letters.letters, log.committed, writer.events) == ([], {}, {})


def test_replay_takes_the_same_path_and_refuses_the_same_records() -> None:
    """`replay` applies each batch with `apply_batch` and no retry: the same isolation."""
    log, events = FakeLog(partitions=[[]]), Workload(PROJECT, 24).build(runs=2)
    fill(log, events)
    log.append(0, b"k", b"not json")
    writer = RefusingWriter({str(events[3].event_id)}, OverflowError("too large"))
    skipped: Poison = []
    records: list[Record] = log.partitions[0]
    applied, refused = apply_batch(writer, parse_records(records), skipped.extend, lambda a: a())
    assert applied == len(events) - 1
    assert [(r.offset, type(e).__name__) for r, e in skipped] == [
        (len(events), "MalformedEventError"),
        (3, "StoreRejected"),
    ]
    assert refused == skipped[1:]
    assert writer.read_offsets(log.topic) == {0: len(events)}
