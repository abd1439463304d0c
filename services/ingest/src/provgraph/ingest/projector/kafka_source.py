"""The event log read from Kafka by the projector: one member of its consumer group."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata

from provgraph.core import kafka_clients
from provgraph.ingest.log_order import NumberingAhead, OrderGate, bounds_before, times_after
from provgraph.ingest.ports import EventSource, LogRecord, PartitionOffset
from provgraph.ingest.projection.numbering import may_number
from provgraph.ingest.projector.progress import client_id, progress_stamp
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import KafkaPartitionReader, LogReadError

# Commits are a progress hint (Neo4j holds the applied offsets): never wait long for one.
_COMMIT_TIMEOUT_MS = 5000
# The order gate's look at end offsets: a broker that does not answer leaves records held.
_END_OFFSETS_TIMEOUT_MS = 2000
# How long a poll waits while a numbering record waits on another member's write.
_OTHERS_WAIT_MS = 5

log = logging.getLogger(__name__)


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
    """One member of the projector's consumer group, on the events topic (a `KafkaConsumer`).

    Its partitions' records come out in the log's order (`log_order.OrderGate`): what a poll
    returns is held until no older record of another partition can still arrive, so the
    screens judge as `replay` and `verify` do however unevenly Kafka fetched. Of a partition
    the gate does not wait on, at most a batch is held: the rest is read again later (memory
    stays bounded by about a batch per partition).

    Numbers are given in the whole log's order, across the group's members too: with
    `applied` (the last offset applied per partition, as the writer stored them), a record
    that may number an experiment or a run (`numbering.may_number`) goes out only once no
    partition this member does not hold has such a record left to apply before it in the
    log's order (`log_order.NumberingAhead`, which reads those partitions from Kafka up to the
    offset of the record's append time). Alone in its group, a member holds every partition
    and never looks.
    """

    def __init__(
        self, settings: IngestSettings, applied: Callable[[], dict[int, int]] | None = None
    ) -> None:
        self._topic = settings.events_topic
        self._bootstrap = settings.kafka_bootstrap
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
            fetch_max_wait_ms=settings.projector_fetch_max_wait_ms,
            session_timeout_ms=settings.projector_session_timeout_ms,
            heartbeat_interval_ms=max(1000, settings.projector_session_timeout_ms // 4),
        )
        self._assignments = _Assignments()
        self._gate = OrderGate()
        self._order_wait_ms = settings.projector_order_wait_ms
        self._on_assigned: Callable[[list[int]], None] = lambda _partitions: None
        self._applied = applied
        self._others: list[int] = []  # the topic's partitions another member may hold
        self._ahead: NumberingAhead | None = None  # made when there are others
        self._reader: KafkaConsumer | None = None
        self._waits_on_others = False
        # numbering records at or before this (append time, partition) may go: the others
        # had applied everything before it (cleared again when the assignment changes)
        self._cleared = (-1, -1)

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
        if self._gate.held():  # what is held waits on time: look again soon
            timeout_ms = min(timeout_ms, max(self._order_wait_ms, 10))
        if self._waits_on_others:  # on another member's write: sooner still
            timeout_ms = min(timeout_ms, _OTHERS_WAIT_MS)
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
        self._gate.add(
            r for tp, batch in polled.items() if tp.partition not in fresh for r in batch
        )
        return self._release()

    def _release(self) -> list[LogRecord]:
        """What the gate lets go now; when it waits on partitions, one look at their end
        offsets first (a partition read to its end holds back nothing older)."""
        assigned = set(self.assigned())
        self._gate.drop(self._gate.partitions() - assigned)  # revoked: the loop rewinds
        self._note_others(assigned)
        self._waits_on_others = False
        # no bar at all (no call per record) unless other members' partitions are watched
        barred = self._barred if self._others else None
        released = self._gate.release(assigned, self.max_records, barred)
        blocked = self._gate.blocked(assigned)
        if blocked and len(released) < self.max_records:
            self._note_quiet(blocked)
            released += self._gate.release(assigned, self.max_records - len(released), barred)
            blocked = self._gate.blocked(assigned)
        if barred is not None and not blocked and len(released) < self.max_records:
            released += self._release_numbering(assigned, self.max_records - len(released))
        self._pace(assigned, set(blocked))
        if blocked and not released:
            log.debug(
                "order gate holds %s, waits on %s (read to their ends before: %s)",
                self._gate.describe(),
                blocked,
                self._gate.quiet_times(),
            )
        return released

    def _note_others(self, assigned: set[int]) -> None:
        """Note the partitions of the topic this member does not hold; what was cleared goes
        when they change."""
        others: list[int] = []
        if self._applied is not None:
            every = self.consumer.partitions_for_topic(self._topic)
            # not known for a moment (metadata refreshing): the ones known before stand
            others = sorted(set(every) - assigned) if every else self._others
        if others != self._others:
            if self._ahead is not None:
                self._ahead.forget(set(self._others) - set(others))
            self._others, self._cleared = others, (-1, -1)

    def _barred(self, record: LogRecord) -> bool:
        """A record that may number something, not yet cleared by the group's progress."""
        return (record.timestamp, record.partition) > self._cleared and may_number(record.value)

    def _release_numbering(self, assigned: set[int], limit: int) -> list[LogRecord]:
        """While the next record is a numbering one the others have applied all before, let
        it and what follows go (up to `limit`); one read of the applied offsets for all."""
        released: list[LogRecord] = []
        applied: dict[int, int] | None = None
        while len(released) < limit:
            head = self._gate.head()
            if head is None or not self._barred(head):
                break
            if applied is None:
                applied = self._read_applied()
                if applied is None:
                    break
            pending = self._pending_before(head, applied)
            if pending:
                self._waits_on_others = True
                log.debug(
                    "numbering record %d@%d (appended %d) waits on partitions %s",
                    head.partition,
                    head.offset,
                    head.timestamp,
                    pending,
                )
                break
            self._cleared = (head.timestamp, head.partition)
            released += self._gate.release(assigned, limit - len(released), self._barred)
        return released

    def _read_applied(self) -> dict[int, int] | None:
        """The offsets applied per partition, as stored; None when the store does not answer
        (what waits keeps waiting)."""
        assert self._applied is not None
        try:
            return self._applied()
        except Exception as exc:  # the store unreachable: the loop finds out when it writes
            log.debug("applied offsets not read: %s", exc)
            return None

    def _pending_before(self, record: LogRecord, applied: dict[int, int]) -> list[int]:
        """The others' partitions that may still apply a numbering record the log's order puts
        before `record` (all of them when the broker does not answer)."""
        ahead, reader = self._numbering_ahead()
        quiet = int(time.time() * 1000) - self._order_wait_ms  # before asking: conservative
        lookup = times_after(record.timestamp, record.partition, self._others)
        tps = {p: TopicPartition(self._topic, p) for p in lookup}
        try:
            found = reader.offsets_for_times(
                {tps[p]: at for p, at in lookup.items()}, timeout_ms=_END_OFFSETS_TIMEOUT_MS
            )
            first = {p: hit.offset if (hit := found.get(tp)) else None for p, tp in tps.items()}
            without = [tps[p] for p, offset in first.items() if offset is None]
            ends = (
                reader.end_offsets(without, timeout_ms=_END_OFFSETS_TIMEOUT_MS)
                if without and record.timestamp < quiet
                else {}
            )
            bounds = bounds_before(
                first, {tp.partition: end for tp, end in ends.items()}, record.timestamp, quiet
            )
            return ahead.pending(bounds, applied, self.max_records)
        except (KafkaError, LogReadError) as exc:  # unreachable: what is held stays held
            log.debug("partitions %s not read: %s", sorted(tps), exc)
            return sorted(tps)

    def _numbering_ahead(self) -> tuple[NumberingAhead, KafkaConsumer]:
        """What is known of the others' numbering records, and the consumer that reads them
        (`_side_reader`)."""
        reader = self._side_reader()
        if self._ahead is None:
            read = KafkaPartitionReader(
                reader, self.max_records, _END_OFFSETS_TIMEOUT_MS / 1000
            ).read
            self._ahead = NumberingAhead(self._topic, read, lambda r: may_number(r.value))
        return self._ahead, reader

    def _side_reader(self) -> KafkaConsumer:
        """The consumer every question to the brokers goes through (end offsets, offsets for
        times, the others' records): of no group, on connections of its own, and waiting
        little for a fetch itself. The group's consumer keeps a fetch waiting at the broker
        for up to `fetch_max_wait_ms` (500 ms) while nothing new arrives, and a broker answers
        a connection's requests in order: asked there, each question would wait behind it."""
        if self._reader is None:
            self._reader = kafka_clients.consumer(self._bootstrap, fetch_max_wait_ms=10)
        return self._reader

    def _note_quiet(self, partitions: list[int]) -> None:
        """Tell the gate which of `partitions` are read to their end, and since when."""
        since = int(time.time() * 1000) - self._order_wait_ms  # before asking: conservative
        for tp in self._read_to_end([TopicPartition(self._topic, p) for p in partitions]):
            self._gate.quiet(tp.partition, since)

    def _read_to_end(self, tps: list[TopicPartition]) -> list[TopicPartition]:
        """Those of `tps` whose position is at their end offset; none when the end offsets
        cannot be read. Both reads are bounded: a position still unknown (None) when the broker
        stops answering counts as not read to its end, so what waits on it keeps waiting."""
        try:
            ends = self._side_reader().end_offsets(tps, timeout_ms=_END_OFFSETS_TIMEOUT_MS)
        except KafkaError as exc:  # unreachable: what is held stays held; polls go on
            log.debug("end offsets of %s not read: %s", tps, exc)
            return []
        at_end = []
        for tp in tps:
            position = self.consumer.position(tp, timeout_ms=_END_OFFSETS_TIMEOUT_MS)
            if position is not None and position >= ends[tp]:
                at_end.append(tp)
        return at_end

    def _pace(self, assigned: set[int], waited_on: set[int]) -> None:
        """Keep at most a batch held per partition the gate does not wait on: the rest is
        forgotten and the partition sought back to it, to be fetched again once the others
        caught up (with kafka-python's pause and resume instead, a resumed partition was seen to
        stop receiving records)."""
        for partition in assigned - waited_on:
            first = self._gate.trim(partition, self.max_records)
            if first is not None:
                self.consumer.seek(TopicPartition(self._topic, partition), first)

    def held(self) -> int:
        """How many records polled are held back for the log's order."""
        return self._gate.held()

    def seek(self, partition: int, offset: int | None) -> None:
        """Position one assigned partition."""
        tp = TopicPartition(self._topic, partition)
        self._gate.drop([partition])  # held records of the old position are read again
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
        """True when every assigned partition's position is at its end offset and nothing
        polled is held (False, too, while the broker does not answer: the reads are
        bounded)."""
        assigned = list(self.consumer.assignment())
        if not assigned or self._gate.held():
            return False
        return len(self._read_to_end(assigned)) == len(assigned)

    def close(self) -> None:
        """Leave the group without committing anything more."""
        if self._reader is not None:
            self._reader.close(autocommit=False)
        self.consumer.close(autocommit=False)
