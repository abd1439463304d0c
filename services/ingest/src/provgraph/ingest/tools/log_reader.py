"""The whole event log read from Kafka, in log order, without a consumer group (`replay` and
`verify`): every partition's span from its beginning to its end at the start, merged by
`log_order.merge_partitions`."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

from kafka import KafkaConsumer, TopicPartition

from provgraph.core import kafka_clients
from provgraph.core.errors import UnavailableError
from provgraph.ingest.log_order import merge_partitions
from provgraph.ingest.ports import LogRecord
from provgraph.ingest.settings import IngestSettings


def read_log_in_order(
    settings: IngestSettings,
    batch: int = 5000,
    *,
    stall_s: float | None = None,
    start: Mapping[int, int] | None = None,
) -> Iterator[list[LogRecord]]:
    """Every record of the event log from its beginning to its end now, in batches of up to
    `batch`, in log order: a record is handed out only once every partition with records left
    shows its next one. Records appended after the start are not read. At most `batch` records
    a partition are held; `stall_s` (default: the settings') without a record is an error.

    `start` (partition -> next offset) continues a read that stopped there: the merge picks
    each record by the partitions' next records alone, so from positions where an earlier read
    stood after a batch it hands out what that read would have handed out next, in the same
    batches."""
    consumer = kafka_clients.consumer(settings.kafka_bootstrap)
    try:
        tps = _partitions(consumer, settings.events_topic)
        begins, ends = consumer.beginning_offsets(tps), consumer.end_offsets(tps)
        at = start or {}
        spans = {tp: (max(begins[tp], at.get(tp.partition, 0)), ends[tp]) for tp in tps}
        reader = KafkaPartitionReader(
            consumer, batch, settings.log_read_stall_s if stall_s is None else stall_s
        )
        yield from merge_partitions(reader.read, spans, batch)
    finally:
        consumer.close(autocommit=False)


def log_size(settings: IngestSettings) -> int:
    """How many records the log holds now (end offsets minus beginning offsets)."""
    return sum(end - begin for begin, end in log_spans(settings).values())


def log_spans(settings: IngestSettings) -> dict[int, tuple[int, int]]:
    """Each partition's (beginning offset, end offset) now."""
    consumer = kafka_clients.consumer(settings.kafka_bootstrap)
    try:
        tps = _partitions(consumer, settings.events_topic)
        ends, begins = consumer.end_offsets(tps), consumer.beginning_offsets(tps)
        return {tp.partition: (begins[tp], ends[tp]) for tp in tps}
    finally:
        consumer.close()


def _partitions(consumer: KafkaConsumer, topic: str) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]


class KafkaPartitionReader:
    """Reads one partition at a time with one consumer. Only the partition asked for is
    assigned, so nothing unwanted is fetched and no pause/resume state is involved (with
    kafka-python 3.0, records parked for a paused partition could stay parked after it was
    resumed, and the partition was never fetched again)."""

    def __init__(self, consumer: KafkaConsumer, batch: int, stall_s: float) -> None:
        self.consumer, self.batch, self.stall_s = consumer, batch, stall_s
        self.current: TopicPartition | None = None

    def read(self, tp: TopicPartition, position: int, end: int) -> tuple[list[LogRecord], int]:
        """Up to `batch` records of `tp` from `position`, below `end`, and the position after."""
        if self.current != tp or int(self.consumer.position(tp)) != position:
            self.consumer.assign([tp])
            self.consumer.seek(tp, position)
            self.current = tp
        records: list[LogRecord] = []
        moved = time.monotonic()
        while len(records) < self.batch and position < end:
            polled = self.consumer.poll(timeout_ms=500, max_records=self.batch - len(records))
            got = [r for r in polled.get(tp, ()) if r.offset < end]
            records.extend(got)
            before, position = position, int(self.consumer.position(tp))
            if records and not got:
                break  # what was fetched is handed out; the next read fetches more
            if position != before:
                moved = time.monotonic()
            elif time.monotonic() - moved > self.stall_s:
                raise LogReadError(
                    f"the event log stalled: partition {tp.partition} of {tp.topic!r} gave no "
                    f"record for {self.stall_s:.0f}s at offset {position} of {end} "
                    "(is Kafka reachable?)",
                    topic=tp.topic,
                    partition=tp.partition,
                    offset=position,
                    end=end,
                )
        return records, position


class LogReadError(UnavailableError):
    """Reading the whole log stopped: a partition gave no record for too long."""
