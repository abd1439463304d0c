"""The events of one spool on their way out: numbered, written, sent, acknowledged.

Every emitted event gets the next seq and is written to the spool's journal in seq order:
by `put` itself (``durable=True``, the default: `emit()` returns once the kernel has the
bytes) or by the sender just before it sends the event (``durable=False``: a hand-off to
memory; a crash loses what was not written yet). Recent events are also kept in memory (at
most `max_queue`), so the sender sends them without reading the journal back; older ones,
and those a previous process left, are read from the journal. Sending goes in seq order and
an acknowledgement is a seq: everything up to it was delivered.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from provgraph.client.spool import Spool
from provgraph.schemas import Event

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Batch:
    """Events to send together, the journal lines they are and the last one's seq."""

    events: list[Event]
    lines: int
    last_seq: int


class Outbox:
    """One spool's events from `put` to `done`. `put` is thread-safe; `take`, `done` and
    `write_pending` belong to the one sender thread."""

    def __init__(
        self,
        spool: Spool,
        *,
        durable: bool = True,
        max_queue: int = 10_000,
        wake: threading.Event | None = None,
        wake_every: int = 500,
    ) -> None:
        self.spool = spool
        self.durable = durable
        self._max_queue = max(max_queue, 2)
        self._wake, self._wake_every = wake or threading.Event(), max(wake_every, 1)
        self._lock = threading.Lock()  # seq and the events kept in memory
        self._io = threading.Lock()  # journal writes, in seq order
        # The events (and their canonical JSON) of seqs `_first` .. `_seq`, in memory.
        self._events: list[Event] = []
        self._data: list[bytes] = []
        self._seq = self._written = spool.max_seq
        self._first = self._seq + 1
        self._acked = spool.acked
        self._write_failed = False

    @property
    def pending(self) -> int:
        """Events not yet delivered: in the journal, or (``durable=False``) not written yet."""
        return self.spool.pending + self._seq - self._written

    def put(self, event: Event, data: bytes) -> None:
        """Give `event` (its canonical JSON `data`) the next seq and, if durable, write it."""
        with self._lock:
            self._seq += 1
            self._events.append(event)
            self._data.append(data)
            if self.durable or len(self._events) > self._max_queue:
                self._write_unwritten()
            if len(self._events) > self._max_queue:
                self._shed()
            unsent = self._seq - self._acked
        if (unsent == 1 or unsent % self._wake_every == 0) and not self._wake.is_set():
            self._wake.set()

    def take(self, limit: int) -> Batch | None:
        """The next `limit` events to send (the same ones again until `done`), each written
        to the journal first; `OSError` when the journal cannot be written."""
        from_seq = self._acked + 1
        with self._lock:
            start, first = from_seq - self._first, self._first
            held = start >= 0 and start < len(self._events)
            if held:
                events = self._events[start : start + limit]
                data = self._data[start : start + limit]
        if held:
            self._write(from_seq, data)  # outside `_lock`: emit does not wait for this write
            return Batch(events, len(events), from_seq + len(events) - 1)
        if start >= 0:
            return None  # nothing left to send
        records = self.spool.read(from_seq, first, limit)
        if not records:
            self._acked = first - 1  # the journal holds nothing between: go on from memory
            return None
        return Batch([r.event for r in records], len(records), records[-1].seq)

    def done(self, batch: Batch) -> None:
        """`batch` (from `take`) was delivered or moved to the rejected file."""
        self.spool.ack(batch.last_seq, batch.lines)
        with self._lock:
            self._acked = batch.last_seq
            gone = min(batch.last_seq - self._first + 1, len(self._events))
            if gone > 0:
                self._drop(gone)

    def write_pending(self) -> None:
        """Write every event not written yet (``durable=False``: before a stop or while the
        transport is down, when they belong on disk rather than in memory)."""
        with self._lock:
            self._write_unwritten()

    def _write_unwritten(self) -> None:
        """Write the events in memory not written yet (the caller holds `_lock`)."""
        unwritten = min(self._seq - self._written, len(self._data))
        if unwritten <= 0:
            return
        try:
            self._write(self._seq - unwritten + 1, self._data[-unwritten:])
        except OSError:
            if not self._write_failed:  # once per failure streak: emit must not raise
                log.exception(
                    "provgraph: cannot write spool %s; events wait in memory",
                    self.spool.directory,
                )
            self._write_failed = True

    def _write(self, first_seq: int, data: list[bytes]) -> None:
        """Write the lines of seqs `first_seq`.. not written yet, in seq order."""
        with self._io:
            skip = self._written + 1 - first_seq
            if skip >= len(data):
                return
            if skip > 0:
                data, first_seq = data[skip:], first_seq + skip
            self.spool.write(first_seq, data)
            self._written = first_seq + len(data) - 1
            self._write_failed = False

    def _shed(self) -> None:
        """Forget the oldest half of what memory holds, written events only: the sender
        reads them back from the journal. Half at a time, so shedding is cheap per event."""
        written = self._written - self._first + 1
        gone = min(written, len(self._events) - self._max_queue // 2)
        if gone > 0:
            self._drop(gone)

    def _drop(self, count: int) -> None:
        del self._events[:count]
        del self._data[:count]
        self._first += count
