"""Reading ahead: the next poll batch decoded and folded while the current one is written.

The stages of a batch are CPU in Python (decode, validate, fold) and a wait on Neo4j (the
write transaction). `overlapped` runs the write on a worker thread and the next batch's parse
on the caller's, so the wait is no longer idle. The rules that keep exactly-once:

- one batch in flight: the next batch is screened and written only after the current one
  committed (its screens read what the current one wrote);
- the offsets of a batch are written in its own transaction, as without reading ahead;
- the next batch is polled before the write starts, never during it: kafka-python rebalances
  only inside `poll`, so no partition is revoked while a write is in flight; when a poll ahead
  sees the assignment change, the loop drops everything it holds unwritten and rewinds;
- a write that fails drops the batch read ahead: both are read again from the offsets stored
  in Neo4j.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar, runtime_checkable

from provgraph.ingest.ports import LogRecord

T = TypeVar("T")
U = TypeVar("U")


@runtime_checkable
class ReadsAhead(Protocol):
    """An event source that can poll without waiting, and say when the poll changed what it
    holds (the Kafka source does; a source without it runs the stages one after another)."""

    def poll_ahead(self) -> list[LogRecord] | None:
        """The records fetched already (none: an empty list, at once); None when partitions
        were revoked or assigned during the poll: whatever the caller holds unwritten must be
        dropped and read again."""


class Overlap:
    """One worker thread for the writes; `run` overlaps one write with one parse.

    The parse is CPU in Python and the write mostly a wait on Neo4j, so the write thread
    needs the interpreter briefly at each reply while the parse holds it. `switch_interval_ms`
    sets how long the parse may keep it (`sys.setswitchinterval`, for the whole process: a
    projector or replay owns its process)."""

    def __init__(self, switch_interval_ms: float | None = None) -> None:
        if switch_interval_ms is not None:
            sys.setswitchinterval(switch_interval_ms / 1000)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="projector-write")

    def run(self, write: Callable[[], T], parse: Callable[[], U]) -> tuple[T, U]:
        """`write()` on the worker while `parse()` runs here; both results, or the write's
        error once the parse is done (the parse's result is then lost: nothing was written
        of it, and the caller reads it again)."""
        pending = self._pool.submit(write)
        try:
            parsed = parse()
        finally:
            written = pending.result()  # a write is never left running on its own
        return written, parsed

    def close(self) -> None:
        """Stop the worker (after the write in flight, if any)."""
        self._pool.shutdown(wait=True)
