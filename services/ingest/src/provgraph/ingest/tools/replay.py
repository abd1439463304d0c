"""Replay and verify: read the whole event log from offset 0, without a consumer group."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TextIO

from provgraph.core.collector import collect_less
from provgraph.ingest.ports import LogRecord, Poison
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector.ahead import Overlap
from provgraph.ingest.projector.batch import Parsed, apply_batch, parse_records
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.screening import discipline_entries, screen_entries
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import log_spans, read_log_in_order
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, METRIC_SERIES_LABEL, OFFSET_LABEL

_COUNT_GRAPH = (
    f"MATCH (n) WHERE n:Entity OR n:{APPLIED_EVENT_LABEL} OR n:{METRIC_SERIES_LABEL} "
    "RETURN count(n) AS n"
)
# A new replay starts its progress afresh (stored offsets only ever move forward).
_FORGET_PROGRESS = f"MATCH (o:{OFFSET_LABEL} {{topic: $key}}) DELETE o"

Read = tuple[list[LogRecord], Parsed]  # a batch of the log and its fold

REPLAY_BATCH = 5000
"""Records per replay batch (one transaction each, its progress stored in it)."""


class ReplayError(Exception):
    """Replay refused or failed."""


class Progress:
    """A one-line progress bar: records, events/s and ETA, redrawn in place. A resumed
    replay starts at `done`; the rate and ETA count only what this run read."""

    def __init__(self, total: int, out: TextIO | None = None, done: int = 0) -> None:
        self.total, self.done, self.out = total, done, out or sys.stderr
        self.first = done
        self.started = time.monotonic()

    def advance(self, count: int) -> None:
        """Add `count` records and redraw."""
        self.done += count
        rate = (self.done - self.first) / max(time.monotonic() - self.started, 1e-6)
        eta = (self.total - self.done) / rate if rate else 0.0
        pct = 100.0 * self.done / self.total if self.total else 100.0
        self.out.write(
            f"\r{self.done}/{self.total} records ({pct:5.1f}%) {rate:,.0f} events/s ETA {eta:.0f}s"
        )
        self.out.flush()

    def elapsed(self) -> float:
        """Seconds since the start."""
        return time.monotonic() - self.started


def progress_key(topic: str) -> str:
    """The key a replay of `topic` stores its progress under, beside the projector's offsets
    of `topic`: a name no Kafka topic can have (':' is not allowed in topic names)."""
    return f"replay:{topic}"


@dataclass(frozen=True)
class Start:
    """Where a replay starts: per partition, the next offset to read and the log's span."""

    positions: dict[int, int]
    spans: dict[int, tuple[int, int]]

    @property
    def done(self) -> int:
        """Records already replayed (before `positions`)."""
        return sum(self.positions[p] - begin for p, (begin, _) in self.spans.items())

    @property
    def total(self) -> int:
        """Records in the log now."""
        return sum(end - begin for begin, end in self.spans.values())

    @classmethod
    def of(cls, spans: dict[int, tuple[int, int]], stored: dict[int, int]) -> Start:
        """From the stored progress (partition -> last offset applied)."""
        positions = {p: max(b, stored[p] + 1) if p in stored else b for p, (b, _) in spans.items()}
        return cls(positions, spans)


def replay_start(
    settings: IngestSettings, writer: GraphWriter, *, resume: bool, require_empty: bool
) -> Start:
    """Where to start: from offset 0 (an empty database unless not `require_empty`), or with
    `resume` where the last stopped replay of the topic stood after its last batch."""
    topic = settings.events_topic
    stored = Start.of(log_spans(settings), writer.read_offsets(progress_key(topic)))
    found = stored.done > 0
    if resume:
        if not found:
            raise ReplayError(f"no stopped replay of topic {topic!r} to resume")
        return stored
    if (
        require_empty
        and writer.driver.execute_query(_COUNT_GRAPH, database_=writer.database).records[0]["n"]
    ):
        stopped = ""
        if found and stored.done < stored.total:
            stopped = (
                f"; a replay of topic {topic!r} stopped at {stored.done} of {stored.total} "
                "records: `provgraph replay --resume` continues it"
            )
        raise ReplayError(
            "the database is not empty: replay rebuilds into an empty database" + stopped
        )
    writer.driver.execute_query(
        _FORGET_PROGRESS, key=progress_key(topic), database_=writer.database
    )
    return Start.of(stored.spans, {})


def replay(
    settings: IngestSettings,
    writer: GraphWriter,
    progress: Callable[[int], None] = lambda _n: None,
    *,
    require_empty: bool = True,
    resume: bool = False,
    start: Start | None = None,
    batch: int = REPLAY_BATCH,
) -> tuple[int, int, int]:
    """Rebuild the graph from offset 0 into an empty database, or with `resume` continue a
    stopped replay (`start`: from `replay_start`); returns what this run did: (records,
    applied, poison).

    Records go through the projector's own path (`batch.parse_records`, `batch.apply_batch`),
    so the same ones are refused: poison records are skipped (the projector dead-lettered them
    when it met them), and a write the store refuses is isolated the same way. Each batch
    stores, in its own transaction, the projector's offsets (a projector started afterwards
    continues where the replay stopped) and the replay's progress (`progress_key`), so a
    replay killed anywhere resumes after its last whole batch, in the same batches. As in the
    projector (`projector.ahead`, `projector_pipeline`), the next batch is read and folded while
    the current one is screened and written; it is screened only after that one committed.
    """
    start = start or replay_start(settings, writer, resume=resume, require_empty=require_empty)
    batches = read_log_in_order(settings, batch, start=start.positions)
    key = progress_key(settings.events_topic)
    skipped: Poison = []

    def read_next() -> Read | None:
        records_batch = next(batches, None)
        if records_batch is None:
            return None
        return records_batch, parse_records(records_batch, settings.max_clock_skew_s)

    def write(read: Read) -> int:
        parsed = read[1]
        parsed.reject(screen_entries(writer, parsed.entries))  # as the projector: ownership
        parsed.reject(discipline_entries(writer, parsed.entries))  # and the discipline rules
        for (_topic, partition), offset in list(parsed.offsets.items()):
            parsed.offsets[(key, partition)] = offset  # stored with the batch, atomically
        return apply_batch(writer, parsed, skipped.extend, _at_once)[0]

    records = applied = 0
    collect_less(settings.projector_gc_threshold)
    pipelined = settings.projector_pipeline
    overlap = Overlap(settings.projector_switch_interval_ms) if pipelined else None
    try:
        current = read_next()
        while current is not None:
            if overlap is None:
                applied_now, following = write(current), read_next()
            else:  # the next batch read and folded while this one is screened and written
                applied_now, following = overlap.run(partial(write, current), read_next)
            applied += applied_now
            records += len(current[0])
            progress(len(current[0]))
            current = following
    finally:
        if overlap is not None:
            overlap.close()
    return records, applied, len(skipped)


def _at_once(action: Callable[[], int]) -> int:
    # A one-shot command: an unreachable store ends the replay (run it again, it is idempotent).
    return action()


def fold_log(
    settings: IngestSettings, progress: Callable[[int], None] = lambda _n: None
) -> Iterator[EventMutations]:
    """Every projectable event of the log, projected with its log stamp, in log order (poison
    records are skipped, by the projector's own rules); `progress` is told each batch's
    record count once its events are handed out."""
    collect_less(settings.projector_gc_threshold)
    for batch in read_log_in_order(settings):
        yield from parse_records(batch, settings.max_clock_skew_s).changes
        progress(len(batch))
