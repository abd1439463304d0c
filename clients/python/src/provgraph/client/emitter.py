"""The emitter: the SDK's entry point. `emit()` hands events over and returns at once."""

from __future__ import annotations

import atexit
import logging
import os
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from provgraph.client.config import default_actor, env
from provgraph.client.delivery import Backoff, Delivery
from provgraph.client.errors import ClientError, RejectedError
from provgraph.client.run import Run
from provgraph.client.sink import EventSink
from provgraph.client.spool import Spool, SpoolLockedError
from provgraph.client.transport import Transport
from provgraph.schemas import MAX_EVENT_BYTES, Event
from provgraph.schemas.version import __version__

log = logging.getLogger(__name__)

PRODUCER = f"https://provgraph.dev/sdk/python/{__version__}"
"""The default `producer` URI of events built by the SDK."""


def default_spool_dir(name: str) -> Path:
    """``$XDG_CACHE_HOME/provgraph/spool/<name>`` (``~/.cache/...`` by default)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "provgraph" / "spool" / name


class Emitter(EventSink):
    """Sends lineage events without ever blocking the caller.

    `emit` puts the event on a bounded in-memory queue (when the queue is full it appends
    it to the spool on disk instead) and returns. A daemon thread takes batches of up to
    `batch_size` events (waiting at most `linger_s` for a batch to fill) and hands them to
    the transport. When the transport is down, batches go to the spool and are resent in
    emit order, before newer events, once it is back; a new emitter on the same spool
    directory resends what an earlier process left. Events refused for good are kept in
    the spool's ``rejected.jsonl``. Use it as a context manager or call `close`; an atexit
    hook flushes (at most `exit_flush_s`) when the interpreter exits.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        name: str = "default",
        project: str | None = None,
        actor: str | None = None,
        producer: str = PRODUCER,
        spool_dir: str | Path | None = None,
        max_queue: int = 10_000,
        batch_size: int = 500,
        linger_s: float = 0.2,
        retry_initial_s: float = 0.5,
        retry_max_s: float = 10.0,
        exit_flush_s: float = 10.0,
    ) -> None:
        self.transport = transport
        self.name = name
        self.project = project or env("PROJECT")
        self.actor = actor or env("ACTOR") or default_actor()
        self.producer = producer
        self.exit_flush_s = exit_flush_s
        self.spool = _open_spool(Path(spool_dir) if spool_dir else default_spool_dir(name))
        self._delivery = Delivery(
            transport,
            self.spool,
            name=name,
            max_queue=max_queue,
            batch_size=batch_size,
            linger_s=linger_s,
            backoff=Backoff(retry_initial_s, retry_max_s),
        )
        self._closed = False
        atexit.register(self._at_exit)

    def emit(self, event: Event) -> None:
        """Hand `event` over for delivery; returns at once (never waits for the network)."""
        if not isinstance(event, Event):
            raise TypeError(f"emit() takes a provgraph.schemas Event, not {type(event).__name__}")
        if self._closed:
            raise ClientError(f"emitter {self.name!r} is closed")
        size = len(event.to_json_bytes())
        if size > MAX_EVENT_BYTES:
            reason = f"event is {size} bytes, over MAX_EVENT_BYTES={MAX_EVENT_BYTES}"
            self._delivery.reject(RejectedError(reason, [event]))
            return
        self._delivery.put(event)

    def run(self, **options: Any) -> Run:
        """A run context manager: ``with emitter.run(experiment=..., params=...) as run:``.

        The options are those of `provgraph.client.run.Run`.
        """
        return Run(self, **options)

    @property
    def pending(self) -> int:
        """Events not yet delivered: queued, in flight or spooled."""
        return self._delivery.pending

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until every event emitted so far is delivered; False if `timeout` ran out.

        Undelivered events are not lost: they stay queued or spooled.
        """
        return self._delivery.flush(timeout)

    def close(self, timeout: float | None = 30.0) -> bool:
        """Flush (at most `timeout`), stop the sender and spool whatever is still queued.

        Returns True when everything was delivered. What is left stays in the spool and is
        resent by the next emitter that uses the same spool directory.
        """
        if self._closed:
            return self.pending == 0
        delivered = self._delivery.flush(timeout)
        self._closed = True
        self._delivery.stop()
        self.transport.close()
        left = self.spool.pending
        self.spool.close()
        atexit.unregister(self._at_exit)
        if left:
            log.warning(
                "provgraph: %d events stay in spool %s for a later resend",
                left,
                self.spool.directory,
            )
        return delivered

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _at_exit(self) -> None:
        self.close(timeout=self.exit_flush_s)


def _open_spool(directory: Path) -> Spool:
    try:
        return Spool(directory)
    except SpoolLockedError:
        # Several processes of one job (one per GPU, say) share a name: one spool each.
        own = directory / f"pid-{os.getpid()}"
        log.warning("provgraph: spool %s is in use by another process, using %s", directory, own)
        return Spool(own)
