"""Group commit for the spool: one fsync per interval covers every write made during it.

A write that reached the kernel survives the process being killed; an fsync makes it
survive a machine crash too. One fsync per event would cost milliseconds each: instead a
thread syncs at most every few milliseconds, and only when something was written.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class GroupSync:
    """Calls `sync` at most every `interval_s`, and only after `poke` said there is
    something to sync: one fsync for all the writes of an interval."""

    def __init__(self, sync: Callable[[], None], interval_s: float, what: str) -> None:
        self._sync, self._interval_s, self._what = sync, interval_s, what
        self._dirty, self._stopping = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, name="provgraph-spool-sync")
        self._thread.daemon = True
        self._thread.start()

    def poke(self) -> None:
        """Something was written: sync within `interval_s`."""
        if not self._dirty.is_set():  # the common case costs an attribute read
            self._dirty.set()

    def stop(self) -> None:
        """Stop the thread (the caller syncs one last time itself)."""
        self._stopping.set()
        self._dirty.set()
        self._thread.join(timeout=10.0)

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._dirty.wait()
            self._stopping.wait(self._interval_s)  # let writes gather: one fsync for many
            self._dirty.clear()
            try:
                self._sync()
            except OSError:
                log.exception("provgraph: fsync of spool %s failed", self._what)
