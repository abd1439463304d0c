"""Reading ahead (`projector.ahead`): the next poll batch is decoded and folded while the
current one is written, and nothing of it is written before the current one committed.

On fakes of the ports: a source that can poll without waiting, and the in-memory graph as
the writer, which records what each write held.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence

import pytest
from neo4j.exceptions import AuthError
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog, folded
from pydantic import ValidationError
from support.projection_workload import Workload

from provgraph.ingest.ports import LogRecord, PartitionOffset
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector import loop as loop_module
from provgraph.ingest.projector.ahead import ReadsAhead
from provgraph.ingest.projector.batch import Parsed
from provgraph.ingest.projector.loop import Projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph

PROJECT = "p"
SETTINGS = IngestSettings(projector_backoff_initial_s=0.01, projector_backoff_max_s=0.02)
BATCH = 4


class AheadSource(FakeEventSource):
    """The fake source, able to poll without waiting; `rebalance_ahead` makes the next such
    poll see the partitions taken away and given back."""

    def __init__(self, log: FakeLog) -> None:
        super().__init__(log, max_records=BATCH)
        self.rebalance_ahead = False

    def poll_ahead(self) -> list[LogRecord] | None:
        if self.rebalance_ahead:
            self.rebalance_ahead = False
            self.rebalance()
            self.poll()  # assigned again from the committed offsets, announced to the loop
            return None
        return self.poll()


class Recording(MemoryGraph):
    """The in-memory graph recording the event ids and offsets of each write. When `slow`, a
    write waits (bounded) for a parse to finish while it runs, and `during` notes, per parse,
    whether a write was in flight. `fail_at`: that write (1-based) raises."""

    def __init__(self, slow: bool, fail_at: int = 0) -> None:
        super().__init__()
        self.slow, self.fail_at, self.calls = slow, fail_at, 0
        self.writes: list[tuple[list[str], list[PartitionOffset]]] = []
        self.failed: list[str] = []
        self.during: list[bool] = []
        self.in_write = False
        self.started, self.parsed = threading.Event(), threading.Event()

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            self.failed = [c.record.event_id for c in changes]
            raise AuthError("the projector's user was dropped")
        self.parsed.clear()  # before `started`: only a parse during this write releases it
        self.in_write = True
        self.started.set()
        if self.slow:
            self.parsed.wait(2.0)  # the last write has nothing to wait for: bounded
        self.in_write = False
        self.started.clear()
        self.writes.append(([c.record.event_id for c in changes], list(offsets)))
        return super().write(changes, offsets)

    def on_parse(self, first: bool) -> None:
        if self.slow and not first:
            self.started.wait(2.0)  # a parse ahead runs beside a write: let it start
        self.during.append(self.in_write)
        self.parsed.set()


LIVE: list[Recording] = []


@pytest.fixture(autouse=True)
def parses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tell the live writer of each poll batch the loop parses."""
    original = loop_module.parse_records
    count = [0]

    def noting(records: Sequence[LogRecord], max_skew_s: float | None = None) -> Parsed:
        parsed = original(records, max_skew_s)
        count[0] += 1
        for writer in LIVE:
            writer.on_parse(first=count[0] == 1)
        return parsed

    monkeypatch.setattr(loop_module, "parse_records", noting)


def setup(
    fail_at: int = 0, pipeline: bool = True, slow: bool = False, runs: int = 6
) -> tuple[Projector, AheadSource, Recording, FakeLog]:
    log, events = FakeLog(), Workload(PROJECT, 3).build(runs=runs)
    for i, event in enumerate(events):
        log.append(i % len(log.partitions), event.kafka_key(), event.to_json_bytes())
    writer = Recording(slow, fail_at)
    LIVE[:] = [writer]
    source = AheadSource(log)
    settings = SETTINGS.model_copy(update={"projector_pipeline": pipeline})
    return Projector(settings, source, writer, FakeDeadLetters()), source, writer, log


def written_ids(writer: Recording) -> list[str]:
    return [event_id for ids, _ in writer.writes for event_id in ids]


def total(log: FakeLog) -> int:
    return sum(len(records) for records in log.partitions)


def test_the_next_batch_is_parsed_while_one_is_written() -> None:
    loop, source, writer, log = setup(slow=True)
    assert isinstance(source, ReadsAhead)
    loop.run_until_idle(timeout_s=30)
    loop.close()
    assert len(writer.writes) == -(-total(log) // BATCH) > 10
    # Every batch but the first was parsed while the one before it was being written.
    assert writer.during == [False] + [True] * (len(writer.writes) - 1)
    assert sorted(written_ids(writer)) == sorted(set(written_ids(writer)))
    assert writer.canonical(PROJECT) == folded(log).canonical(PROJECT)


def test_without_the_pipeline_nothing_is_parsed_during_a_write() -> None:
    loop, _, writer, log = setup(pipeline=False)
    loop.run_until_idle(timeout_s=30)
    assert len(writer.during) == len(writer.writes) > 10
    assert not any(writer.during)
    assert writer.canonical(PROJECT) == folded(log).canonical(PROJECT)


def test_a_failed_write_leaves_the_batch_read_ahead_unwritten_and_reads_both_again() -> None:
    loop, _, writer, log = setup(fail_at=3)
    loop.step()
    loop.step()
    stored = writer.read_offsets(log.topic)
    with pytest.raises(AuthError):
        loop.step()  # the third batch's write fails; the fourth was parsed meanwhile
    assert len(writer.writes) == 2 and writer.read_offsets(log.topic) == stored
    parses_before = len(writer.during)
    loop.step()  # rewinds first: the third batch again, not the one read ahead
    assert writer.writes[2][0] == writer.failed != []
    loop.run_until_idle(timeout_s=30)
    assert len(writer.during) > parses_before
    assert sorted(written_ids(writer)) == sorted(set(written_ids(writer)))
    assert len(written_ids(writer)) == total(log)
    assert writer.canonical(PROJECT) == folded(log).canonical(PROJECT)


def test_an_assignment_change_while_reading_ahead_drops_the_held_batch() -> None:
    loop, source, writer, log = setup()
    loop.step()
    loop.step()
    writes, stored = len(writer.writes), writer.read_offsets(log.topic)
    source.rebalance_ahead = True
    loop.step()  # the held batch is screened, then the poll ahead sees the rebalance
    assert len(writer.writes) == writes and writer.read_offsets(log.topic) == stored
    loop.run_until_idle(timeout_s=30)
    assert sorted(written_ids(writer)) == sorted(set(written_ids(writer)))
    assert len(written_ids(writer)) == total(log)
    assert writer.canonical(PROJECT) == folded(log).canonical(PROJECT)


@pytest.fixture
def switch_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("switch_interval")
def test_the_pipeline_sets_the_interpreters_switch_interval_from_the_settings() -> None:
    sys.setswitchinterval(0.005)
    settings = SETTINGS.model_copy(update={"projector_switch_interval_ms": 0.25})
    log = FakeLog()
    Projector(settings, AheadSource(log), Recording(False), FakeDeadLetters()).close()
    assert sys.getswitchinterval() == pytest.approx(0.00025)
    # Without the pipeline (no second thread) the process keeps its own.
    sys.setswitchinterval(0.005)
    serial = settings.model_copy(update={"projector_pipeline": False})
    Projector(serial, AheadSource(log), Recording(False), FakeDeadLetters()).close()
    assert sys.getswitchinterval() == pytest.approx(0.005)
    with pytest.raises(ValidationError, match="projector_switch_interval_ms"):
        IngestSettings(projector_switch_interval_ms=0)
