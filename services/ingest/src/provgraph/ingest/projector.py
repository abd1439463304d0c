"""The projector: Kafka event log -> pure projection -> Neo4j, with exactly-once effect.

Per poll batch: parse and project every record (poison records go to the dead-letter topic,
acknowledged before anything else), write the batch and the last offset per partition in one
Neo4j transaction, then commit the Kafka offsets. On partition assignment the consumer seeks
past the offset stored in Neo4j, so Kafka commits are only a progress hint for monitoring.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from provgraph.ingest.deadletter import DeadLetters
from provgraph.ingest.hooks import HookedWriter, Hooks
from provgraph.ingest.openlineage.wrap import decode_log_value
from provgraph.ingest.projection import EventMutations, ProjectionError, project_event
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.writer import PartitionOffset
from provgraph.schemas import ContractError

log = logging.getLogger(__name__)

_UNAVAILABLE = (
    ServiceUnavailable,
    SessionExpired,
    TransientError,
    DatabaseUnavailable,
    ConnectionAcquisitionTimeoutError,
    OSError,
)


class ProjectorError(Exception):
    """Root of the projector's errors."""


class Stopped(ProjectorError):
    """The projector was asked to stop while it waited for Neo4j."""


def is_unavailable(exc: BaseException) -> bool:
    """True for errors that mean "Neo4j is not there right now": retry, never dead-letter."""
    retryable = getattr(exc, "is_retryable", None)
    return isinstance(exc, _UNAVAILABLE) or bool(retryable and retryable())


@dataclass
class Stats:
    """What a projector did so far."""

    batches: int = 0
    records: int = 0
    applied: int = 0
    dead_lettered: int = 0
    neo4j_retries: int = 0


@dataclass
class _Parsed:
    changes: list[EventMutations] = field(default_factory=list)
    poison: list[tuple[Any, BaseException]] = field(default_factory=list)
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)


def parse_records(records: list[Any]) -> _Parsed:
    """Parse and project each record; a record that fails either is poison."""
    parsed = _Parsed()
    for record in records:
        key = (record.topic, record.partition)
        parsed.offsets[key] = max(parsed.offsets.get(key, -1), record.offset)
        try:
            parsed.changes.append(project_event(decode_log_value(record.value or b"")))
        except (ContractError, ProjectionError, ValueError, TypeError) as exc:
            parsed.poison.append((record, exc))
    return parsed


class _SeekFromNeo4j(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, projector: Projector) -> None:
        self.projector = projector

    def on_partitions_revoked(self, revoked: Any) -> None:
        pass  # nothing buffered across batches: each batch is written before the next poll

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.projector.seek_to_stored(list(assigned))


class Projector:
    """One projector process's loop; several in one consumer group split the partitions."""

    def __init__(
        self,
        settings: IngestSettings,
        driver: Driver | None = None,
        *,
        hooks: Hooks | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.settings = settings
        self.topic = settings.events_topic
        self._own_driver = driver is None
        self.driver = driver or GraphDatabase.driver(
            settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)
        )
        self.hooks = hooks or Hooks.from_env()
        self.writer = HookedWriter(
            self.driver, settings.neo4j_database, lambda: self.hooks.inside_neo4j_tx()
        )
        self.stop = stop or threading.Event()
        self.stats = Stats()
        self.consumer = KafkaConsumer(
            bootstrap_servers=settings.kafka_bootstrap,
            group_id=settings.projector_group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            max_poll_records=settings.projector_max_batch,
            session_timeout_ms=settings.projector_session_timeout_ms,
            heartbeat_interval_ms=max(1000, settings.projector_session_timeout_ms // 4),
        )
        # Know the topic's partitions before joining the group: a member that joins first
        # gets nothing assigned ("no partition metadata"), and the rebalance that follows
        # when the metadata arrives could leave one member holding every partition.
        self.consumer.partitions_for_topic(self.topic)
        self.consumer.subscribe([self.topic], listener=_SeekFromNeo4j(self))
        self.dead_letters = DeadLetters(settings)

    def seek_to_stored(self, partitions: list[TopicPartition]) -> None:
        """Position each partition just past the last offset applied to Neo4j."""
        stored = self._until_available(lambda: self.writer.read_offsets(self.topic))
        for tp in partitions:
            if tp.partition in stored:
                self.consumer.seek(tp, stored[tp.partition] + 1)
            else:
                self.consumer.seek_to_beginning(tp)

    def step(self) -> int:
        """Poll, apply and commit one batch; return the number of records it held."""
        polled = self.consumer.poll(
            timeout_ms=self.settings.projector_poll_timeout_ms,
            max_records=self.settings.projector_max_batch,
        )
        records = [r for batch in polled.values() for r in batch]
        if records:
            self._handle(records)
        return len(records)

    def _handle(self, records: list[Any]) -> None:
        parsed = parse_records(records)
        try:
            if parsed.poison:
                self.dead_letters.send(parsed.poison)
        except KafkaError:
            self.rewind()  # nothing moved: read the same records again after a pause
            raise
        offsets = [PartitionOffset(t, p, o) for (t, p), o in parsed.offsets.items()]
        applied = self._until_available(lambda: self.writer.write(parsed.changes, offsets))
        self.hooks.after_neo4j_commit()
        self._commit_kafka(parsed.offsets)
        self._count(records, parsed, applied)

    def _count(self, records: list[Any], parsed: _Parsed, applied: int) -> None:
        self.stats.batches += 1
        self.stats.records += len(records)
        self.stats.applied += applied
        self.stats.dead_lettered += len(parsed.poison)

    def _commit_kafka(self, offsets: dict[tuple[str, int], int]) -> None:
        commit = {
            TopicPartition(t, p): OffsetAndMetadata(o + 1, "", -1) for (t, p), o in offsets.items()
        }
        try:
            self.consumer.commit(commit)
        except KafkaError as exc:  # secondary: Neo4j holds the truth, so a failure is harmless
            log.warning("Kafka offset commit failed (Neo4j offsets stay authoritative): %s", exc)

    def rewind(self) -> None:
        """Seek every assigned partition back to the offsets stored in Neo4j."""
        self.seek_to_stored(list(self.consumer.assignment()))

    def _until_available(self, action: Callable[[], Any]) -> Any:
        """Run `action`, retrying with capped exponential backoff while Neo4j is unavailable."""
        delay = self.settings.projector_backoff_initial_s
        while True:
            try:
                return action()
            except Exception as exc:
                if not is_unavailable(exc):
                    raise
                self.stats.neo4j_retries += 1
                log.warning("Neo4j unavailable (%s); retrying in %.1fs", exc, delay)
            if self.stop.wait(delay):
                raise Stopped("stopped while waiting for Neo4j")
            delay = min(delay * 2, self.settings.projector_backoff_max_s)

    def caught_up(self) -> bool:
        """True when every assigned partition's position is at its end offset."""
        assigned = list(self.consumer.assignment())
        if not assigned:
            return False
        ends = self.consumer.end_offsets(assigned)
        return all(self.consumer.position(tp) >= ends[tp] for tp in assigned)

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
        """Process until `stop` is set (the long-running `provgraph projector`)."""
        while not self.stop.is_set():
            try:
                self.step()
            except KafkaError as exc:
                log.warning("Kafka error, pausing before the next poll: %s", exc)
                self.stop.wait(self.settings.projector_backoff_max_s)
            except Stopped:
                break
        return self.stats

    def close(self) -> None:
        """Leave the group without committing anything more; close the clients."""
        self.consumer.close(autocommit=False)
        self.dead_letters.close()
        if self._own_driver:
            self.driver.close()
