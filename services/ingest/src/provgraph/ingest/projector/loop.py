"""The projector: Kafka event log -> pure projection -> Neo4j, with exactly-once effect.

Per poll batch: parse and project every record (`batch`: poison records go to the dead-letter
sink, acknowledged before anything else), write the batch and the last offset per partition
in one Neo4j transaction, then commit the Kafka offsets. While a batch is written, the next
one is decoded and folded (`ahead`: one batch in flight; it is screened and written only once
the previous one committed). A write the store refuses is split
until the refused records are alone; they are dead-lettered and the rest applied, so one bad
record never stops projection: only an unreachable Neo4j or Kafka makes the loop wait. On
partition assignment the source seeks past the offset stored in Neo4j, so Kafka commits are
only a progress hint for monitoring.

The loop runs on ports (`provgraph.ingest.ports`): its event source, writer and dead-letter
sink are parameters; `run.build_projector` wires the production ones.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kafka.errors import KafkaError

from provgraph.core.collector import collect_less
from provgraph.ingest.ports import (
    BatchWriter,
    DeadLetterSink,
    EventSource,
    LogRecord,
    PartitionOffset,
    Poison,
)
from provgraph.ingest.projector.ahead import Overlap, ReadsAhead
from provgraph.ingest.projector.batch import (
    Parsed,
    apply_batch,
    describe,
    is_unavailable,
    parse_records,
)
from provgraph.ingest.projector.rejections import one_line
from provgraph.ingest.projector.retry import (
    ProjectorError,
    Stopped,
    kafka_unavailable,
    retry_while_unavailable,
)
from provgraph.ingest.screening import discipline_entries, screen_entries
from provgraph.ingest.settings import IngestSettings

log = logging.getLogger(__name__)

__all__ = [
    "Parsed",
    "Projector",
    "ProjectorError",
    "Stats",
    "Stopped",
    "is_unavailable",
    "kafka_unavailable",
    "parse_records",
    "retry_while_unavailable",
]


@dataclass
class Stats:
    """What a projector did so far."""

    batches: int = 0
    records: int = 0
    applied: int = 0
    dead_lettered: int = 0
    neo4j_retries: int = 0


class Projector:
    """One projector process's loop; several in one consumer group split the partitions."""

    def __init__(
        self,
        settings: IngestSettings,
        source: EventSource,
        writer: BatchWriter,
        dead_letters: DeadLetterSink,
        *,
        stop: threading.Event | None = None,
    ) -> None:
        self.settings = settings
        self.source = source
        self.writer = writer
        self.dead_letters = dead_letters
        self.stop = stop or threading.Event()
        self.stats = Stats()
        self._uncommitted: dict[int, int] = {}  # partition -> offset not yet committed to Kafka
        self._commit_retry_at = 0.0
        self._reported, self._reported_at = Stats(), time.monotonic()
        # A poll batch decoded and folded while the one before it was written: next to handle.
        self._ahead: tuple[list[LogRecord], Parsed] | None = None
        self._rewind_due = False  # a write failed: what was read after the stored offsets
        collect_less(settings.projector_gc_threshold)
        pipelined = settings.projector_pipeline and isinstance(source, ReadsAhead)
        self._overlap = Overlap(settings.projector_switch_interval_ms) if pipelined else None
        source.subscribe(self._on_assigned)

    def _on_assigned(self, partitions: list[int]) -> None:
        # Which member reads what is the first question when a group misbehaves: say it.
        log.info("assigned partitions %s of %s", sorted(partitions), self.source.topic)
        self.seek_to_stored(partitions)

    def seek_to_stored(self, partitions: list[int]) -> None:
        """Position each partition just past the last offset applied to Neo4j, and commit
        that position to Kafka: the group's progress hint then agrees with Neo4j, stamped now
        (a projector that was just given partitions is making progress)."""
        topic = self.source.topic
        stored = self._until_available(lambda: self.writer.read_offsets(topic))
        for partition in partitions:
            offset = stored.get(partition)
            self.source.seek(partition, None if offset is None else offset + 1)
        self._commit_kafka(
            [PartitionOffset(topic, p, stored[p]) for p in partitions if p in stored]
        )

    def step(self) -> int:
        """Poll, apply and commit one batch (the one read ahead, if any); return the number
        of records it held."""
        if self._rewind_due:
            self.rewind()
        if self._ahead is not None:
            (records, parsed), self._ahead = self._ahead, None
        else:
            records = self.source.poll()
            parsed = self._parse(records) if records else Parsed()
        if records:
            self._handle(records, parsed)
        elif self._uncommitted and time.monotonic() >= self._commit_retry_at:
            self._commit_kafka([])  # idle: bring the progress hint up to date
        self._report_progress()
        return len(records)

    def _parse(self, records: list[LogRecord]) -> Parsed:
        return parse_records(records, self.settings.max_clock_skew_s)

    def _handle(self, records: list[LogRecord], parsed: Parsed) -> None:
        self._screen_ownership(parsed)
        self._screen_discipline(parsed)
        ahead = self._poll_ahead()
        if ahead is None:  # the assignment changed: nothing held is ours to write any more
            self.rewind()
            return
        try:
            applied, parsed_ahead = self._write(parsed, ahead)
        except BaseException:
            self._rewind_due = True  # this batch and the one read ahead: read both again
            raise
        self._commit_kafka(parsed.last_offsets())
        if ahead:
            self._ahead = (ahead, parsed_ahead)
        self.stats.batches += 1
        self.stats.records += len(records)
        self.stats.applied += applied

    def _poll_ahead(self) -> list[LogRecord] | None:
        """The next batch's records, polled without waiting before the write starts (never
        during it: no rebalance can happen while a write is in flight); [] when not reading
        ahead, None when the assignment changed during the poll."""
        if self._overlap is None or not isinstance(self.source, ReadsAhead):
            return []
        return self.source.poll_ahead()

    def _write(self, parsed: Parsed, ahead: list[LogRecord]) -> tuple[int, Parsed]:
        """Apply `parsed` (`batch.apply_batch`) while `ahead` is parsed, when there is any."""

        def write() -> int:
            applied, _ = apply_batch(self.writer, parsed, self._send, self._until_available)
            return applied

        if not ahead or self._overlap is None:
            return write(), Parsed()
        return self._overlap.run(write, lambda: self._parse(ahead))

    def _screen_ownership(self, parsed: Parsed) -> None:
        """Move to the poison every event that writes another project's run, checkpoint,
        evaluation or dataset (reason `ownership`: `provgraph.ingest.screening`)."""
        entries = parsed.entries
        parsed.reject(self._until_available(lambda: screen_entries(self.writer, entries)))

    def _screen_discipline(self, parsed: Parsed) -> None:
        """Then move to the poison, of what is left, every snapshot that changes a recorded
        environment and every run.completed its project's policy refuses (reasons
        `environment_changed`, `conclusion_required`: `projection.discipline`)."""
        entries = parsed.entries
        parsed.reject(self._until_available(lambda: discipline_entries(self.writer, entries)))

    def _send(self, poison: Poison) -> None:
        """Store dead letters before the offsets move past them; when the sink is unreachable,
        nothing moves: the same records are read again after a pause."""
        try:
            self.dead_letters.send(poison)
        except KafkaError:
            self.rewind()
            raise
        self.stats.dead_lettered += len(poison)
        first = poison[0]
        log.warning(
            "dead-lettered %d records (%s), first %s/%d@%d: %s",
            len(poison),
            describe(poison),
            first[0].topic,
            first[0].partition,
            first[0].offset,
            one_line(first[1], 300),
        )

    def _commit_kafka(self, offsets: list[PartitionOffset]) -> None:
        """Commit `offsets` and any that failed before (of partitions still held)."""
        held = set(self.source.assigned())
        due = {p: o for p, o in self._uncommitted.items() if p in held}
        due.update({o.partition: o.offset for o in offsets})
        if not due:
            return
        try:
            self.source.commit([PartitionOffset(self.source.topic, p, o) for p, o in due.items()])
            self._uncommitted = {}
        except KafkaError as exc:  # secondary: Neo4j holds the truth, so a failure is harmless
            # Kept for later: the commit is how `services status` sees progress.
            self._uncommitted = due
            self._commit_retry_at = time.monotonic() + self.settings.projector_backoff_max_s
            log.warning("Kafka offset commit failed (Neo4j offsets stay authoritative): %s", exc)

    def _report_progress(self) -> None:
        """An INFO line now and then, when records were read since the last one."""
        elapsed = time.monotonic() - self._reported_at
        if elapsed < self.settings.projector_progress_log_s:
            return
        last, now = self._reported, self.stats
        if now.records > last.records:
            log.info(
                "progress: %d records read, %d events applied, %d dead-lettered in %.0fs "
                "(%d records since start)",
                now.records - last.records,
                now.applied - last.applied,
                now.dead_lettered - last.dead_lettered,
                elapsed,
                now.records,
            )
        self._reported, self._reported_at = replace(now), time.monotonic()

    def rewind(self) -> None:
        """Seek every assigned partition back to the offsets stored in Neo4j (a batch read
        ahead is dropped: it is read again)."""
        self._ahead = None
        self.seek_to_stored(self.source.assigned())
        self._rewind_due = False

    def _until_available(self, action: Callable[[], Any]) -> Any:
        """Run `action`, retrying with capped exponential backoff while Neo4j is unavailable."""

        def count() -> None:
            self.stats.neo4j_retries += 1

        return retry_while_unavailable(
            action, "Neo4j", is_unavailable, self.settings, self.stop, on_retry=count
        )

    def caught_up(self) -> bool:
        """True when every assigned partition is read to its end."""
        return self.source.caught_up()

    def run_until_idle(self, timeout_s: float = 120.0) -> Stats:
        """Process until every assigned partition is caught up (for tests, replay and jobs)."""
        deadline = time.monotonic() + timeout_s
        while not self.stop.is_set():
            if self.step() == 0 and self.caught_up():
                return self.stats
            if time.monotonic() > deadline:
                raise TimeoutError(f"projector not caught up after {timeout_s}s: {self.stats}")
        return self.stats

    def run(self) -> Stats:
        """Process until `stop` is set (the long-running `provgraph projector`).

        A Kafka error pauses the loop, with the same capped exponential backoff as a Neo4j
        outage, reset by the next step that succeeds: a fixed long pause would leave the
        projector idle for that long after Kafka is back.
        """
        delay = self.settings.projector_backoff_initial_s
        while not self.stop.is_set():
            try:
                self.step()
            except KafkaError as exc:
                log.warning("Kafka error, pausing %.1fs before the next poll: %s", delay, exc)
                self.stop.wait(delay)
                delay = min(delay * 2, self.settings.projector_backoff_max_s)
                continue
            except Stopped:
                break
            delay = self.settings.projector_backoff_initial_s
        return self.stats

    def close(self) -> None:
        """Leave the group without committing anything more (a batch read ahead is dropped:
        its offsets were never stored); close the dead-letter sink."""
        self._ahead = None
        if self._overlap is not None:
            self._overlap.close()
        self.source.close()
        self.dead_letters.close()

    def __enter__(self) -> Projector:
        return self

    def __exit__(self, *exc: object) -> None:
        """`close`, also when the work in the block raised (a timeout, a crash)."""
        self.close()
