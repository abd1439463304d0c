"""Replay and verify: read the whole event log from offset 0, without a consumer group."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from kafka import KafkaConsumer, TopicPartition

from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector import parse_records
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.writer import GraphWriter, PartitionOffset
from provgraph.schemas.graph import APPLIED_EVENT_LABEL

_COUNT_GRAPH = f"MATCH (n) WHERE n:Entity OR n:{APPLIED_EVENT_LABEL} RETURN count(n) AS n"


class ReplayError(Exception):
    """Replay refused or failed."""


def read_log(settings: IngestSettings, batch: int = 5000) -> Iterator[list[Any]]:
    """Every record of the event log from offset 0 to its end now, in poll batches."""
    consumer = KafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap, enable_auto_commit=False, group_id=None
    )
    try:
        parts = consumer.partitions_for_topic(settings.events_topic) or set()
        tps = [TopicPartition(settings.events_topic, p) for p in sorted(parts)]
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
        parts = consumer.partitions_for_topic(settings.events_topic) or set()
        tps = [TopicPartition(settings.events_topic, p) for p in parts]
        ends, begins = consumer.end_offsets(tps), consumer.beginning_offsets(tps)
        return sum(ends[tp] - begins[tp] for tp in tps)
    finally:
        consumer.close()


class Progress:
    """A one-line progress bar: records, events/s and ETA, redrawn in place."""

    def __init__(self, total: int, out: TextIO = sys.stderr) -> None:
        self.total, self.done, self.out = total, 0, out
        self.started = time.monotonic()

    def advance(self, count: int) -> None:
        """Add `count` records and redraw."""
        self.done += count
        rate = self.done / max(time.monotonic() - self.started, 1e-6)
        eta = (self.total - self.done) / rate if rate else 0.0
        pct = 100.0 * self.done / self.total if self.total else 100.0
        self.out.write(
            f"\r{self.done}/{self.total} records ({pct:5.1f}%) {rate:,.0f} events/s ETA {eta:.0f}s"
        )
        self.out.flush()

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.started


def replay(
    settings: IngestSettings,
    writer: GraphWriter,
    progress: Callable[[int], None] = lambda _n: None,
    *,
    require_empty: bool = True,
) -> tuple[int, int, int]:
    """Rebuild the graph from offset 0 into an empty database: (records, applied, poison).

    Poison records are skipped (the projector already dead-lettered them when it met them).
    """
    if require_empty and writer.driver.execute_query(_COUNT_GRAPH).records[0]["n"]:
        raise ReplayError("the database is not empty: replay rebuilds into an empty database")
    records = applied = poison = 0
    for batch in read_log(settings):
        parsed = parse_records(batch)
        offsets = [PartitionOffset(t, p, o) for (t, p), o in parsed.offsets.items()]
        applied += writer.write(parsed.changes, offsets)
        records, poison = records + len(batch), poison + len(parsed.poison)
        progress(len(batch))
    return records, applied, poison


def fold_log(settings: IngestSettings) -> Iterator[EventMutations]:
    """Every projectable event of the log, projected (poison records are skipped)."""
    for batch in read_log(settings):
        yield from parse_records(batch).changes
