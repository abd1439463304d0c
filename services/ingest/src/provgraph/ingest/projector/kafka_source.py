"""The event log read from Kafka by the projector: one member of its consumer group."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from kafka import ConsumerRebalanceListener, TopicPartition
from kafka.structs import OffsetAndMetadata

from provgraph.core import kafka_clients
from provgraph.ingest.ports import EventSource, LogRecord, PartitionOffset
from provgraph.ingest.projector.progress import client_id, progress_stamp
from provgraph.ingest.settings import IngestSettings

# Commits are a progress hint (Neo4j holds the applied offsets): never wait long for one.
_COMMIT_TIMEOUT_MS = 5000


class _Assignments(ConsumerRebalanceListener):  # type: ignore[misc]
    """Notes each new assignment; kafka-python calls it on its IO thread, which must not block
    (a slow call there stops heartbeats and the group evicts the member), so the work that
    follows an assignment (reading offsets from Neo4j, seeking) runs in `poll`'s thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fresh: set[int] = set()
        self.changes = 0  # revocations and assignments so far: a poll ahead compares them

    def on_partitions_revoked(self, revoked: Any) -> None:
        # A batch read ahead is dropped by the loop (`poll_ahead`), and no write is in flight
        # during a poll (`projector.ahead`): nothing of a revoked partition is written later.
        with self._lock:
            self._fresh -= {tp.partition for tp in revoked}
            self.changes += 1

    def on_partitions_assigned(self, assigned: Any) -> None:
        with self._lock:
            self._fresh |= {tp.partition for tp in assigned}
            self.changes += 1

    def take(self) -> set[int]:
        """The partitions assigned since the last call."""
        with self._lock:
            fresh, self._fresh = self._fresh, set()
        return fresh


class KafkaEventSource(EventSource):
    """One member of the projector's consumer group, on the events topic (a `KafkaConsumer`)."""

    def __init__(self, settings: IngestSettings) -> None:
        self._topic = settings.events_topic
        self.poll_timeout_ms = settings.projector_poll_timeout_ms
        self.max_records = settings.projector_max_batch
        self.consumer = kafka_clients.consumer(
            settings.kafka_bootstrap,
            group_id=settings.projector_group,
            # The group names its members by client id: `services status` finds this process.
            client_id=client_id(os.getpid()),
            reconnect_backoff_max_ms=settings.projector_reconnect_backoff_max_ms,
            auto_offset_reset="earliest",
            max_poll_records=settings.projector_max_batch,
            session_timeout_ms=settings.projector_session_timeout_ms,
            heartbeat_interval_ms=max(1000, settings.projector_session_timeout_ms // 4),
        )
        self._assignments = _Assignments()
        self._on_assigned: Callable[[list[int]], None] = lambda _partitions: None

    @property
    def topic(self) -> str:
        """The events topic."""
        return self._topic

    def subscribe(self, on_assigned: Callable[[list[int]], None]) -> None:
        """Join the group; `poll` calls `on_assigned` in its own thread."""
        self._on_assigned = on_assigned
        self.consumer.subscribe([self._topic], listener=self._assignments)
        # Know the topic's partitions before joining the group (joins happen in `poll`): a
        # member that joins first gets nothing assigned ("no partition metadata"), and the
        # rebalance that follows when the metadata arrives could leave one member holding
        # every partition. Fetched after `subscribe`, so that the group coordinator notes
        # them for the subscribed topic too: fetched before, its note stays empty until the
        # next metadata refresh, which then looks like a change and rebalances once more.
        self.consumer.partitions_for_topic(self._topic)

    def poll(self) -> list[LogRecord]:
        """One poll: up to `projector_max_batch` records. Partitions assigned during it are
        announced to `on_assigned` first, and their records (read from the group's committed
        position, before `on_assigned` could seek) are left for the next poll."""
        return self._poll(self.poll_timeout_ms)

    def poll_ahead(self) -> list[LogRecord] | None:
        """A poll that does not wait (`projector.ahead.ReadsAhead`): the records fetched
        already, or None when the assignment changed during it."""
        before = self._assignments.changes
        records = self._poll(0)
        return None if self._assignments.changes != before else records

    def _poll(self, timeout_ms: int) -> list[LogRecord]:
        polled = self.consumer.poll(timeout_ms=timeout_ms, max_records=self.max_records)
        fresh = self._assignments.take()
        for tp, batch in polled.items():
            if tp.partition in fresh and batch:
                self.consumer.seek(tp, batch[0].offset)  # unread until `on_assigned` says where
        if fresh:
            try:
                self._on_assigned(sorted(fresh))
            except BaseException:
                self._assignments.on_partitions_assigned(
                    TopicPartition(self._topic, p) for p in fresh
                )
                raise  # still to position: announced again after the next poll
        return [r for tp, batch in polled.items() if tp.partition not in fresh for r in batch]

    def seek(self, partition: int, offset: int | None) -> None:
        """Position one assigned partition."""
        tp = TopicPartition(self._topic, partition)
        if offset is None:
            self.consumer.seek_to_beginning(tp)
        else:
            self.consumer.seek(tp, offset)

    def assigned(self) -> list[int]:
        """The partitions this member holds now."""
        return sorted(tp.partition for tp in self.consumer.assignment())

    def commit(self, done: Sequence[PartitionOffset]) -> None:
        """Commit the position after each processed offset to the group, stamped with the
        time (`provgraph.ingest.projector.progress`: how `services status` sees progress)."""
        stamp = progress_stamp()
        self.consumer.commit(
            {
                TopicPartition(d.topic, d.partition): OffsetAndMetadata(d.offset + 1, stamp, -1)
                for d in done
            },
            timeout_ms=_COMMIT_TIMEOUT_MS,
        )

    def caught_up(self) -> bool:
        """True when every assigned partition's position is at its end offset."""
        assigned = list(self.consumer.assignment())
        if not assigned:
            return False
        ends = self.consumer.end_offsets(assigned)
        return all(self.consumer.position(tp) >= ends[tp] for tp in assigned)

    def close(self) -> None:
        """Leave the group without committing anything more."""
        self.consumer.close(autocommit=False)
