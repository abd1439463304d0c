"""The projector: Kafka event log -> pure projection -> Neo4j, with exactly-once effect.

Per poll batch: parse and project every record (`batch`: poison records go to the dead-letter
sink, acknowledged before anything else), write the batch and the last offset per partition
in one Neo4j transaction, then commit the Kafka offsets. A write the store refuses is split
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

from provgraph.client.errors import TransportError
from provgraph.ingest.ports import (
    BatchWriter,
    DeadLetterSink,
    EventSource,
    LogRecord,
    PartitionOffset,
    Poison,
)
from provgraph.ingest.projector.batch import (
    Interrupted,
    Parsed,
    apply_batch,
    describe,
    is_unavailable,
    parse_records,
)
from provgraph.ingest.projector.rejections import one_line
from provgraph.ingest.screening import discipline_entries, screen_entries
from provgraph.ingest.settings import IngestSettings

log = logging.getLogger(__name__)

__all__ = ["Parsed", "Projector", "Stats", "Stopped", "is_unavailable", "parse_records"]


class ProjectorError(Exception):
    """Root of the projector's errors."""


class Stopped(ProjectorError, Interrupted):
    """The projector was asked to stop while it waited for Neo4j."""


def retry_while_unavailable(
    action: Callable[[], Any],
    what: str,
    transient: Callable[[BaseException], bool],
    settings: IngestSettings,
    stop: threading.Event,
    on_retry: Callable[[], None] = lambda: None,
) -> Any:
    """Run `action`, retrying with capped exponential backoff while it fails with an error
    `transient` calls an outage of `what`; `Stopped` when `stop` is set meanwhile."""
    delay = settings.projector_backoff_initial_s
    while True:
        try:
            return action()
        except Exception as exc:
            if not transient(exc):
                raise
            on_retry()
            log.warning("%s unavailable (%s); retrying in %.1fs", what, exc, delay)
        if stop.wait(delay):
            raise Stopped(f"stopped while waiting for {what}")
        delay = min(delay * 2, settings.projector_backoff_max_s)


def kafka_unavailable(exc: BaseException) -> bool:
    """True for errors that mean "Kafka is not there right now"."""
    return isinstance(exc, KafkaError | TransportError)


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
        """Poll, apply and commit one batch; return the number of records it held."""
        records = self.source.poll()
        if records:
            self._handle(records)
        elif self._uncommitted and time.monotonic() >= self._commit_retry_at:
            self._commit_kafka([])  # idle: bring the progress hint up to date
        self._report_progress()
        return len(records)

    def _handle(self, records: list[LogRecord]) -> None:
        parsed = parse_records(records, self.settings.max_clock_skew_s)
        self._screen_ownership(parsed)
        self._screen_discipline(parsed)
        applied, _ = apply_batch(self.writer, parsed, self._send, self._until_available)
        self._commit_kafka(parsed.last_offsets())
        self.stats.batches += 1
        self.stats.records += len(records)
        self.stats.applied += applied

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
        """Seek every assigned partition back to the offsets stored in Neo4j."""
        self.seek_to_stored(self.source.assigned())

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
        """Leave the group without committing anything more; close the dead-letter sink."""
        self.source.close()
        self.dead_letters.close()
