"""The delivery pipeline behind an emitter: bounded queue, sender thread, spool and resend.

Order: every event gets a sequence number when emitted. While the spool is empty, the
sender sends batches straight from the queue. As soon as anything is spooled (transport
down, or the queue overflowed), queued events are moved to the spool too and the spool is
replayed sorted by sequence number, so the log sees events in emit order (per subject, the
order that matters) and a resent event keeps its event_id.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence

from provgraph.client.errors import RejectedError, TransportError
from provgraph.client.spool import Spool, SpoolRecord
from provgraph.client.transport import Transport
from provgraph.schemas import Event

log = logging.getLogger(__name__)


class Backoff:
    """Exponential delay between attempts while the transport is down."""

    def __init__(self, initial_s: float, max_s: float) -> None:
        self.initial_s, self.max_s = initial_s, max_s
        self.failures = 0
        self.next_at = 0.0

    def failed(self, hurry: bool) -> None:
        self.failures += 1
        delay = min(self.max_s, self.initial_s * 2 ** (self.failures - 1))
        self.next_at = time.monotonic() + (min(delay, 1.0) if hurry else delay)

    def succeeded(self) -> None:
        self.failures, self.next_at = 0, 0.0

    def wait_s(self) -> float:
        return max(0.0, self.next_at - time.monotonic())


class Delivery:
    """Owns the queue, the spool and the sender thread; `put` never waits for the network."""

    def __init__(
        self,
        transport: Transport,
        spool: Spool,
        *,
        name: str,
        max_queue: int,
        batch_size: int,
        linger_s: float,
        backoff: Backoff,
    ) -> None:
        self.transport, self.spool, self.name = transport, spool, name
        self.batch_size, self.linger_s, self.backoff = batch_size, linger_s, backoff
        self._queue: queue.Queue[SpoolRecord] = queue.Queue(maxsize=max_queue)
        self._seq = spool.max_seq
        self._lock = threading.Lock()  # seq + placement atomic; orders overflow vs. batches
        self._wake, self._hurry, self._stopping = (threading.Event() for _ in range(3))
        self._down_since: float | None = None
        self._thread = threading.Thread(target=self._run, name=f"provgraph-emitter-{name}")
        self._thread.daemon = True
        self._thread.start()

    @property
    def pending(self) -> int:
        """Events not yet delivered: queued, in flight or spooled."""
        return self._queue.unfinished_tasks + self.spool.pending

    def put(self, event: Event) -> None:
        """Queue `event`; when the queue is full, append it to the spool instead."""
        with self._lock:
            self._seq += 1
            record = SpoolRecord(self._seq, event)
            try:
                self._queue.put_nowait(record)
            except queue.Full:
                self._overflow(record)

    def flush(self, timeout: float | None) -> bool:
        """Wait until nothing is pending (True) or `timeout` runs out (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._hurry.set()
        try:
            while self.pending and self._thread.is_alive():
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                self._wake.set()
                time.sleep(0.01)
            return self.pending == 0
        finally:
            self._hurry.clear()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the sender after its current batch, then spool whatever is still queued."""
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=timeout)
        self._spool_queue()

    def reject(self, exc: RejectedError) -> None:
        """Keep events refused for good in the spool's rejected file, loudly."""
        log.error(
            "provgraph: %d events refused for good, kept in %s/rejected.jsonl: %s",
            len(exc.events),
            self.spool.directory,
            exc,
        )
        self.spool.reject(exc.events, str(exc))

    # -- the sender thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if self.spool.pending:
                    self._replay()
                else:
                    self._deliver(self._collect())
            except Exception:  # the sender must survive anything: say so and go on
                log.exception("provgraph emitter %r: unexpected error in the sender", self.name)
                self._stopping.wait(1.0)

    def _collect(self) -> list[SpoolRecord]:
        try:
            batch = [self._queue.get(timeout=0.05)]
        except queue.Empty:
            return []
        deadline = time.monotonic() + self.linger_s
        while len(batch) < self.batch_size:
            hurry = self._hurry.is_set() or self._stopping.is_set()
            wait = 0.0 if hurry else deadline - time.monotonic()
            try:
                batch.append(
                    self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
                )
            except queue.Empty:
                if wait <= 0:
                    break
        return batch

    def _deliver(self, batch: list[SpoolRecord]) -> None:
        if not batch:
            return
        with self._lock:  # events that overflowed before this check are older: they go first
            detour = self.spool.pending > 0
        try:
            if detour:
                self.spool.append(batch)
            else:
                self._send(batch)
        except TransportError as exc:
            self.spool.append(batch)
            self._went_down(exc)
        finally:
            for _ in batch:
                self._queue.task_done()

    def _send(self, batch: Sequence[SpoolRecord]) -> None:
        try:
            self.transport.send([r.event for r in batch])
        except RejectedError as exc:
            self.reject(exc)
        except TransportError:
            raise
        except Exception as exc:  # a transport bug must not lose the batch: spool it
            raise TransportError(f"{self.transport.describe()} failed: {exc!r}") from exc
        self._came_back()

    def _replay(self) -> None:
        wait = self.backoff.wait_s()
        if wait > 0:
            self._spool_queue()  # while down, queued events belong on disk, not in memory
            self._wake.wait(min(wait, max(self.linger_s, 0.05)))
            self._wake.clear()
            return
        horizon = self._spool_queue()
        snapshot = self.spool.snapshot()
        due = [r for r in snapshot.records if r.seq <= horizon]
        later = [r for r in snapshot.records if r.seq > horizon]
        sent = self._send_in_order(due)
        self.spool.commit(snapshot, due[sent:] + later)

    def _send_in_order(self, records: list[SpoolRecord]) -> int:
        sent = 0
        while sent < len(records) and not self._stopping.is_set():
            chunk = records[sent : sent + self.batch_size]
            try:
                self._send(chunk)
            except TransportError as exc:
                self._went_down(exc)
                break
            sent += len(chunk)
        return sent

    def _spool_queue(self) -> int:
        """Move queued events to the spool; return the newest seq emitted so far."""
        with self._lock:
            records = _drain(self._queue)
            horizon = self._seq
        try:
            self.spool.append(records)
        finally:
            for _ in records:
                self._queue.task_done()
        return horizon

    def _overflow(self, record: SpoolRecord) -> None:
        try:
            self.spool.append([record])  # never wait for the network: the disk takes it
        except OSError:
            log.exception(
                "provgraph: queue full and spool %s unwritable: event %s lost",
                self.spool.directory,
                record.event.event_id,
            )

    def _went_down(self, exc: TransportError) -> None:
        self.backoff.failed(hurry=self._hurry.is_set())
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning(
                "provgraph: %s is unavailable (%s); spooling events to %s",
                self.transport.describe(),
                exc,
                self.spool.directory,
            )

    def _came_back(self) -> None:
        self.backoff.succeeded()
        if self._down_since is not None:
            log.warning(
                "provgraph: %s is back after %.1f s; resending the spool in order",
                self.transport.describe(),
                time.monotonic() - self._down_since,
            )
            self._down_since = None


def _drain(q: queue.Queue[SpoolRecord]) -> list[SpoolRecord]:
    out: list[SpoolRecord] = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out
