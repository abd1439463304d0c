"""The projector's loop on fakes of its ports: no broker, no database.

The fakes pass the same contracts as the Kafka adapters (test_projector_ports_fakes.py) and the
writer is the in-memory graph, which passes the writer contract. The loop runs once against
the real broker and Neo4j in tests/integration/projector.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import pytest
from kafka.errors import KafkaError
from neo4j.exceptions import AuthError, ServiceUnavailable
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog, RecordingStop, folded
from support.projection_workload import Workload

from provgraph.ingest.ports import PartitionOffset
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector.loop import Projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event

PROJECT = "p"
SETTINGS = IngestSettings(projector_backoff_initial_s=0.5, projector_backoff_max_s=2.0)


class FlakyWriter(MemoryGraph):
    """The in-memory graph, unreachable for its first `failures` writes; it records each write
    with the offsets the source had committed at that moment."""

    def __init__(self, log: FakeLog, failures: int = 0, error: Exception | None = None) -> None:
        super().__init__()
        self.log, self.failures = log, failures
        self.error = error or ServiceUnavailable("connection refused")
        self.calls: list[tuple[list[PartitionOffset], dict[int, int]]] = []

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        if self.failures:
            self.failures -= 1
            raise self.error
        self.calls.append((list(offsets), dict(self.log.committed)))
        return super().write(changes, offsets)


def fill(log: FakeLog, events: list[Event], poison: Sequence[tuple[int, bytes]] = ()) -> None:
    """Events spread over the partitions, then the poison records at their partitions."""
    for i, event in enumerate(events):
        log.append(i % len(log.partitions), event.kafka_key(), event.to_json_bytes())
    for partition, value in poison:
        log.append(partition, b"poison", value)


def projector(
    log: FakeLog,
    writer: MemoryGraph,
    stop: threading.Event | None = None,
    letters: FakeDeadLetters | None = None,
) -> tuple[Projector, FakeEventSource, FakeDeadLetters]:
    source, letters = FakeEventSource(log, max_records=4), letters or FakeDeadLetters()
    return Projector(SETTINGS, source, writer, letters, stop=stop), source, letters


def expected(log: FakeLog) -> object:
    return folded(log).canonical(PROJECT)


def test_poison_records_are_dead_lettered_and_the_loop_moves_on() -> None:
    log, events = FakeLog(), Workload(PROJECT, 1).build(runs=3)
    fill(log, events, [(1, b"\xffnot json"), (2, b'{"event_type": "run.started"}')])
    graph = MemoryGraph()
    loop, _, letters = projector(log, graph)
    stats = loop.run_until_idle(timeout_s=5)
    assert graph.canonical(PROJECT) == expected(log)
    assert (stats.records, stats.applied, stats.dead_lettered) == (len(events) + 2, len(events), 2)
    classes = [
        (h["source.partition"], h["error.class"], h["provgraph-reason"])
        for _, _, h in letters.letters
    ]
    assert classes == [
        (b"1", b"MalformedEventError", b"contract"),
        (b"2", b"EventValidationError", b"contract"),
    ]
    last = {p: len(records) - 1 for p, records in enumerate(log.partitions)}
    assert graph.read_offsets(log.topic) == last


def test_each_batch_is_written_with_its_offsets_before_kafka_commits_it() -> None:
    log, events = FakeLog(), Workload(PROJECT, 2).build(runs=3)
    fill(log, events)
    writer = FlakyWriter(log)
    loop, _, _ = projector(log, writer)
    loop.run_until_idle(timeout_s=5)
    assert len(writer.calls) == loop.stats.batches > 3
    stored: dict[int, int] = {}
    for offsets, committed_before in writer.calls:
        # Kafka holds exactly what Neo4j held before this batch: commits follow the writes.
        assert committed_before == {p: o + 1 for p, o in stored.items()}
        stored.update({o.partition: o.offset for o in offsets})
    assert log.committed == {p: len(records) for p, records in enumerate(log.partitions)}
    assert writer.read_offsets(log.topic) == {p: o - 1 for p, o in log.committed.items()}


def test_an_unavailable_writer_is_retried_with_capped_exponential_backoff(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log, events = FakeLog(), Workload(PROJECT, 3).build(runs=2)
    fill(log, events)
    writer, stop = FlakyWriter(log, failures=5), RecordingStop()
    loop, _, letters = projector(log, writer, stop)
    stats = loop.run_until_idle(timeout_s=5)
    assert stop.waits == [0.5, 1.0, 2.0, 2.0, 2.0]
    assert stats.neo4j_retries == 5
    assert writer.canonical(PROJECT) == expected(log)
    assert letters.letters == []  # an outage is never a poison record
    assert caplog.text.count("Neo4j unavailable") == 5


def test_an_error_of_the_setup_is_raised_at_once_and_nothing_moves() -> None:
    """A refused login is no record's fault: dead-lettering for it would empty the log."""
    log = FakeLog()
    fill(log, Workload(PROJECT, 4).build(runs=1))
    error = AuthError("The client is unauthorized due to authentication failure.")
    writer, stop = FlakyWriter(log, failures=1, error=error), RecordingStop()
    loop, _, letters = projector(log, writer, stop)
    with pytest.raises(AuthError):
        loop.step()
    assert (stop.waits, log.committed, letters.letters) == ([], {}, [])


def test_a_refusal_that_goes_away_when_retried_applies_everything() -> None:
    log, events = FakeLog(), Workload(PROJECT, 4).build(runs=1)
    fill(log, events)
    writer = FlakyWriter(log, failures=1, error=ValueError("bad query"))
    loop, _, letters = projector(log, writer)
    loop.run_until_idle(timeout_s=5)
    assert writer.canonical(PROJECT) == expected(log)
    assert letters.letters == []


def test_stop_while_waiting_for_the_writer_ends_the_loop_with_nothing_committed() -> None:
    log = FakeLog()
    fill(log, Workload(PROJECT, 5).build(runs=1))
    writer, stop = FlakyWriter(log, failures=1000), RecordingStop(after=2)
    loop, _, _ = projector(log, writer, stop)
    stats = loop.run()
    assert (stats.neo4j_retries, stats.batches, log.committed) == (2, 0, {})
    assert writer.events == {}


def test_on_every_assignment_the_source_seeks_past_what_the_writer_stored() -> None:
    log, events = FakeLog(), Workload(PROJECT, 6).build(runs=3)
    fill(log, events)
    graph = MemoryGraph()
    graph.write([], [PartitionOffset(log.topic, 0, 1)])  # partition 0 applied up to offset 1
    loop, source, _ = projector(log, graph)
    stats = loop.run_until_idle(timeout_s=5)
    assert stats.records == len(events) - 2
    skipped = {str(e.event_id) for e in events[0:6:3]}  # offsets 0 and 1 of partition 0
    assert skipped.isdisjoint(graph.events) and len(graph.events) == len(events) - 2
    source.rebalance()
    assert loop.step() == 0  # sought to the stored offsets again: nothing read twice
    assert source.assigned() == [0, 1, 2]


def test_a_dead_letter_failure_rewinds_to_the_stored_offsets_and_the_batch_is_read_again() -> None:
    log, events = FakeLog(), Workload(PROJECT, 7).build(runs=1)
    fill(log, events[:2], [(2, b"not json")])
    letters = FakeDeadLetters()
    letters.send_errors.append(KafkaError("dead-letter topic unreachable"))
    graph = MemoryGraph()
    loop, source, _ = projector(log, graph, letters=letters)
    with pytest.raises(KafkaError):
        loop.step()
    assert source.positions == {0: 0, 1: 0, 2: 0} and graph.events == {}
    stats = loop.run_until_idle(timeout_s=5)
    assert (stats.applied, stats.dead_lettered, len(letters.letters)) == (2, 1, 1)


def test_kafka_errors_pause_the_running_loop_with_a_backoff_that_a_success_resets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log, stop = FakeLog(), RecordingStop(after=4)
    loop, source, _ = projector(log, MemoryGraph(), stop)
    down = KafkaError("broker down")
    source.poll_errors += [down, down, down, None, down]  # None: Kafka is back for one poll
    loop.run()
    # Back to the first delay once a poll succeeds: no long pause after Kafka returns.
    assert stop.waits == [0.5, 1.0, 2.0, 0.5]
    assert "Kafka error, pausing 0.5s before the next poll" in caplog.text


def test_a_failed_kafka_commit_is_logged_harmless_and_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log, events = FakeLog(), Workload(PROJECT, 8).build(runs=2)
    fill(log, events)
    graph = MemoryGraph()
    loop, source, _ = projector(log, graph)
    source.commit_errors.append(KafkaError("coordinator moved"))
    loop.run_until_idle(timeout_s=5)
    assert graph.canonical(PROJECT) == expected(log)
    assert "Kafka offset commit failed" in caplog.text
    # The failed commit went out with a later one: the progress hint agrees with the writer.
    assert log.committed == {p: o + 1 for p, o in graph.read_offsets(log.topic).items()}


def test_a_failed_commit_of_the_last_batch_is_retried_once_idle() -> None:
    log, events = FakeLog(), Workload(PROJECT, 10).build(runs=2)
    fill(log, events)
    graph = MemoryGraph()
    settings = SETTINGS.model_copy(update={"projector_backoff_max_s": 0.0})  # retry at once
    source = FakeEventSource(log, max_records=1000)
    loop = Projector(settings, source, graph, FakeDeadLetters())
    source.commit_errors.append(KafkaError("coordinator moved"))
    assert loop.step() == len(events)  # one batch: written, its commit failed
    assert log.committed == {}
    assert loop.step() == 0  # nothing to read: the commit is made now
    assert log.committed == {p: len(records) for p, records in enumerate(log.partitions)}


def test_an_assignment_commits_the_stored_offsets_to_kafka_before_reading() -> None:
    log, events = FakeLog(), Workload(PROJECT, 11).build(runs=3)
    fill(log, events)
    writer = FlakyWriter(log)
    MemoryGraph.write(writer, [], [PartitionOffset(log.topic, 0, 1)])  # stored, not via calls
    loop, _, _ = projector(log, writer)
    loop.step()
    # Before the first batch is written, Kafka already resumes where Neo4j stands.
    assert writer.calls[0][1] == {0: 2}


def test_progress_is_logged_only_when_records_were_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log, events = FakeLog(), Workload(PROJECT, 12).build(runs=2)
    fill(log, events)
    settings = SETTINGS.model_copy(update={"projector_progress_log_s": 0.0})
    loop = Projector(
        settings, FakeEventSource(log, max_records=1000), MemoryGraph(), FakeDeadLetters()
    )
    caplog.set_level("INFO", logger="provgraph.ingest.projector")
    loop.step()
    loop.step()  # idle: says nothing
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("progress:")]
    n = len(events)
    said = rf"progress: {n} records read, {n} events applied, 0 dead-lettered in \d+s \({n} .*"
    assert len(lines) == 1 and re.fullmatch(said, lines[0]), lines


def test_run_until_idle_gives_up_after_its_timeout_and_close_releases_the_ports() -> None:
    log = FakeLog()
    fill(log, Workload(PROJECT, 9).build(runs=2))
    loop, source, letters = projector(log, MemoryGraph())
    with pytest.raises(TimeoutError, match="not caught up"):
        loop.run_until_idle(timeout_s=0)
    loop.close()
    assert source.closed and letters.closed
    # As a context manager, the projector is closed when the block raises, too.
    again, source, letters = projector(log, MemoryGraph())
    with pytest.raises(TimeoutError, match="not caught up"), again:
        again.run_until_idle(timeout_s=0)
    assert source.closed and letters.closed
