"""The sender behind an emitter: one thread that sends the spools' journals, in seq order.

It sends this process's outbox and every orphan outbox it claimed (spools of the same
emitter name that dead processes left). A batch is acknowledged once the transport took
it, or once its refused events are in the rejected file; until then it is sent again, so
a resent event keeps its event_id and receivers dedupe it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from provgraph.client.errors import NotAuthorizedError, RejectedError, TransportError
from provgraph.client.outbox import Batch, Outbox
from provgraph.client.spool import Spool
from provgraph.client.transport import Transport
from provgraph.schemas import Event

log = logging.getLogger(__name__)

ClaimOrphans = Callable[[], list[Spool]]
"""Spools with pending events that no live process holds, now locked by this one."""


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


class AuthWindow:
    """How long refusals as not authorised (401, 403) are retried before they count.

    A token or grant just created is valid once the projector applied it, seconds later:
    refusals are retried with backoff until `window_s` has passed since the first refusal
    with no delivery in between; after that they are final until a batch gets through.
    """

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._since: float | None = None

    def retrying(self) -> bool:
        now = time.monotonic()
        if self._since is None:
            self._since = now
        return now - self._since < self.window_s

    def delivered(self) -> None:
        self._since = None


class Delivery:
    """Owns the sender thread; `flush` and `stop` are the emitter's."""

    def __init__(
        self,
        transport: Transport,
        own: Outbox,
        *,
        name: str,
        batch_size: int,
        linger_s: float,
        backoff: Backoff,
        auth: AuthWindow,
        wake: threading.Event,
        claim: ClaimOrphans | None = None,
        orphan_scan_s: float = 10.0,
    ) -> None:
        self.transport, self.own, self.name = transport, own, name
        self.batch_size, self.linger_s = max(batch_size, 1), linger_s
        self.backoff, self.auth = backoff, auth
        self._wake, self._claim, self._orphan_scan_s = wake, claim, orphan_scan_s
        self._hurry, self._stopping = threading.Event(), threading.Event()
        self._orphans: list[Outbox] = []
        self._next_scan = 0.0
        self._down_since: float | None = None
        self._scan_orphans()  # before the first flush can look: what is claimed is pending
        self._thread = threading.Thread(target=self._run, name=f"provgraph-emitter-{name}")
        self._thread.daemon = True
        self._thread.start()

    @property
    def outboxes(self) -> tuple[Outbox, ...]:
        """The orphan outboxes being drained, then this process's own."""
        return (*self._orphans, self.own)

    @property
    def pending(self) -> int:
        """Events not yet delivered, in every outbox this process sends."""
        return sum(outbox.pending for outbox in self.outboxes)

    def flush(self, timeout: float | None) -> bool:
        """Wait until nothing is pending (True) or `timeout` runs out (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        self._hurry.set()
        try:
            while self.pending and self._thread.is_alive():
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                self._wake.set()
                time.sleep(0.005)
            return self.pending == 0
        finally:
            self._hurry.clear()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the sender after its current batch; write what is still only in memory and
        release the orphan spools (what is left in them waits for a later process)."""
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=timeout)
        self.own.write_pending()
        for orphan in self._orphans:
            _release(orphan.spool)
        self._orphans = []

    def reject(self, outbox: Outbox, exc: RejectedError) -> None:
        """Keep events refused for good in the spool's rejected file, loudly."""
        log.error(
            "provgraph: %d events refused for good, kept in %s/rejected.jsonl: %s",
            len(exc.events),
            outbox.spool.directory,
            exc,
        )
        outbox.spool.reject(exc.events, str(exc))

    # -- the sender thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._step()
            except Exception:  # the sender must survive anything: say so and go on
                log.exception("provgraph emitter %r: unexpected error in the sender", self.name)
                self._stopping.wait(1.0)

    def _step(self) -> None:
        self._scan_orphans()
        wait = self.backoff.wait_s()
        if wait > 0:
            self.own.write_pending()  # while down, events belong on disk, not in memory
            self._sleep(min(wait, 0.5))
            return
        outbox = self._next_outbox()
        if outbox is None:
            self._sleep(0.5)
            return
        if outbox is self.own:
            self._linger()
        batch = outbox.take(self.batch_size)
        if batch is None:
            self._sleep(0.05)  # counted as pending, yet nothing to send: do not spin
            return
        self._deliver(outbox, batch)

    def _next_outbox(self) -> Outbox | None:
        for orphan in list(self._orphans):
            if orphan.pending:
                return orphan
            _release(orphan.spool)
            self._orphans.remove(orphan)
            log.warning("provgraph: resent what spool %s held", orphan.spool.directory)
        return self.own if self.own.pending else None

    def _linger(self) -> None:
        """Give a partial batch up to `linger_s` to fill (not when flushing or stopping)."""
        deadline = time.monotonic() + self.linger_s
        while self.own.pending < self.batch_size and not self._in_a_hurry():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._sleep(left)

    def _deliver(self, outbox: Outbox, batch: Batch) -> None:
        try:
            self._send_or_settle(outbox, batch.events)
        except TransportError as exc:  # not delivered: sent again after a backoff
            self._went_down(exc)
            return
        outbox.done(batch)
        self._came_back()

    def _send_or_settle(self, outbox: Outbox, events: list[Event]) -> None:
        try:
            self._send(events)
        except NotAuthorizedError as exc:
            if self.auth.retrying():
                raise  # like an unreachable receiver, for a while
            self._settle(outbox, events, exc)
        except RejectedError as exc:
            self.reject(outbox, exc)

    def _settle(self, outbox: Outbox, events: list[Event], exc: NotAuthorizedError) -> None:
        """Refusals outlived the window: isolate the refused events (a 403 may concern only
        some of them, the batch being refused whole) and reject those."""
        refused = exc.events if exc.status == 401 else self._isolate(events)
        if refused:
            self.reject(outbox, RejectedError(f"{exc} (retried {self.auth.window_s} s)", refused))

    def _isolate(self, events: list[Event]) -> list[Event]:
        try:
            self._send(events)
        except NotAuthorizedError as exc:
            if len(events) == 1 or exc.status == 401:
                return exc.events
            middle = len(events) // 2
            return self._isolate(events[:middle]) + self._isolate(events[middle:])
        except RejectedError as exc:
            return exc.events
        return []

    def _send(self, events: list[Event]) -> None:
        try:
            self.transport.send(events)
        except TransportError:
            raise
        except Exception as exc:  # a transport bug must not lose the batch: retry it
            raise TransportError(f"{self.transport.describe()} failed: {exc!r}") from exc
        self.auth.delivered()

    def _scan_orphans(self) -> None:
        if self._claim is None or time.monotonic() < self._next_scan:
            return
        self._next_scan = time.monotonic() + self._orphan_scan_s
        for spool in self._claim():
            log.warning(
                "provgraph: resending %d events an earlier process left in %s",
                spool.pending,
                spool.directory,
            )
            self._orphans.append(Outbox(spool))

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _in_a_hurry(self) -> bool:
        return self._hurry.is_set() or self._stopping.is_set()

    def _went_down(self, exc: TransportError) -> None:
        self.backoff.failed(hurry=self._hurry.is_set())
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning(
                "provgraph: %s is unavailable (%s); events wait in spool %s",
                self.transport.describe(),
                exc,
                self.own.spool.directory,
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


def _release(spool: Spool) -> None:
    """Close a drained (or half-drained) orphan spool; an emptied ``pid-*`` directory goes."""
    spool.close(remove=spool.directory.name.startswith("pid-"))
