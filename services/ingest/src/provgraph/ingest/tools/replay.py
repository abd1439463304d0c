"""Replay and verify: read the whole event log from offset 0, without a consumer group."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from provgraph.ingest.ports import Poison
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector.batch import apply_batch, parse_records
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.screening import discipline_entries, screen_entries
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import read_log_in_order
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, METRIC_SERIES_LABEL

_COUNT_GRAPH = (
    f"MATCH (n) WHERE n:Entity OR n:{APPLIED_EVENT_LABEL} OR n:{METRIC_SERIES_LABEL} "
    "RETURN count(n) AS n"
)


class ReplayError(Exception):
    """Replay refused or failed."""


class Progress:
    """A one-line progress bar: records, events/s and ETA, redrawn in place."""

    def __init__(self, total: int, out: TextIO | None = None) -> None:
        self.total, self.done, self.out = total, 0, out or sys.stderr
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

    Records go through the projector's own path (`batch.parse_records`, `batch.apply_batch`),
    so the same ones are refused: poison records are skipped (the projector dead-lettered them
    when it met them), and a write the store refuses is isolated the same way.
    """
    if require_empty and writer.driver.execute_query(_COUNT_GRAPH).records[0]["n"]:
        raise ReplayError("the database is not empty: replay rebuilds into an empty database")
    records = applied = 0
    skipped: Poison = []
    for batch in read_log_in_order(settings):
        parsed = parse_records(batch, settings.max_clock_skew_s)
        parsed.reject(screen_entries(writer, parsed.entries))  # as the projector: ownership
        parsed.reject(discipline_entries(writer, parsed.entries))  # and the discipline rules
        applied += apply_batch(writer, parsed, skipped.extend, _at_once)[0]
        records += len(batch)
        progress(len(batch))
    return records, applied, len(skipped)


def _at_once(action: Callable[[], int]) -> int:
    # A one-shot command: an unreachable store ends the replay (run it again, it is idempotent).
    return action()


def fold_log(settings: IngestSettings) -> Iterator[EventMutations]:
    """Every projectable event of the log, projected with its log stamp, in log order (poison
    records are skipped, by the projector's own rules)."""
    for batch in read_log_in_order(settings):
        yield from parse_records(batch, settings.max_clock_skew_s).changes
