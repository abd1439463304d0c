"""The event log read from Kafka: the projector's group member, and whole-log reads for replay."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata

from provgraph.ingest.ports import EventSource, LogRecord, PartitionOffset
from provgraph.ingest.settings import IngestSettings


class _OnAssigned(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, on_assigned: Callable[[list[int]], None]) -> None:
        self.on_assigned = on_assigned

    def on_partitions_revoked(self, revoked: Any) -> None:
        pass  # nothing buffered across batches: each batch is written before the next poll

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.on_assigned(sorted(tp.partition for tp in assigned))


class KafkaEventSource(EventSource):
    """One member of the projector's consumer group, on the events topic (a `KafkaConsumer`)."""

    def __init__(self, settings: IngestSettings) -> None:
        self._topic = settings.events_topic
        self.poll_timeout_ms = settings.projector_poll_timeout_ms
        self.max_records = settings.projector_max_batch
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
        self.consumer.partitions_for_topic(self._topic)

    @property
    def topic(self) -> str:
        """The events topic."""
        return self._topic

    def subscribe(self, on_assigned: Callable[[list[int]], None]) -> None:
        """Join the group; kafka-python calls `on_assigned` from inside `poll`."""
        self.consumer.subscribe([self._topic], listener=_OnAssigned(on_assigned))

    def poll(self) -> list[LogRecord]:
        """One poll: up to `projector_max_batch` records."""
        polled = self.consumer.poll(timeout_ms=self.poll_timeout_ms, max_records=self.max_records)
        return [r for batch in polled.values() for r in batch]

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
        """Commit the position after each processed offset to the group."""
        self.consumer.commit(
            {
                TopicPartition(d.topic, d.partition): OffsetAndMetadata(d.offset + 1, "", -1)
                for d in done
            }
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


def read_log(settings: IngestSettings, batch: int = 5000) -> Iterator[list[LogRecord]]:
    """Every record of the event log from offset 0 to its end now, in poll batches."""
    consumer = KafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False, group_id=None
    )
    try:
        tps = _partitions(consumer, settings.events_topic)
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        ends = consumer.end_offsets(tps)
        while any(consumer.position(tp) < ends[tp] for tp in tps):
            polled = consumer.poll(timeout_ms=1000, max_records=batch)
            yield [r for tp in tps for r in polled.get(tp, []) if r.offset < ends[tp]]
    finally:
        consumer.close(autocommit=False)


def log_size(settings: IngestSettings) -> int:
    """How many records the log holds now (end offsets minus beginning offsets)."""
    consumer = KafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, group_id=None)
    try:
        tps = _partitions(consumer, settings.events_topic)
        ends, begins = consumer.end_offsets(tps), consumer.beginning_offsets(tps)
        return sum(ends[tp] - begins[tp] for tp in tps)
    finally:
        consumer.close()


def _partitions(consumer: KafkaConsumer, topic: str) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
