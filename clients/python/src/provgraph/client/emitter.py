"""The emitter: the SDK's entry point. `emit()` writes the event to the spool and returns."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from pathlib import Path
from typing import Any, Self

from provgraph.client.config import DURABILITY, default_actor, env
from provgraph.client.delivery import AuthWindow, Backoff, Delivery
from provgraph.client.errors import ClientError, ConfigError, RejectedError
from provgraph.client.outbox import Outbox
from provgraph.client.run import Run
from provgraph.client.sink import EventSink
from provgraph.client.spool_dirs import PID_PREFIX, claim_orphans, open_own
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
    """Sends lineage events without ever waiting for the network; what it accepted survives
    the process being killed.

    With ``durability="spool"`` (the default) `emit` returns once the event is written to
    the spool's journal on disk (`os.write`: the kernel has it, so SIGKILL or the OOM killer
    lose nothing); a thread fsyncs the journal every `fsync_interval_s` against machine
    crashes (None: never). With ``durability="memory"`` `emit` only hands the event over and
    the sender writes it to the journal before sending it: faster, and a crash loses what
    was not written yet. A daemon thread sends the journal in emit order, in batches of up to
    `batch_size` (waiting at most `linger_s` for a batch to fill), and records how far the
    transport acknowledged it; while the transport is down it retries with backoff, and
    refusals as not authorised (401, 403) are retried for `auth_retry_s` first. Events
    refused for good go to the spool's ``rejected.jsonl``. A later emitter of the same name
    sends whatever any earlier process left, ``pid-*`` spools included (looking again every
    `orphan_scan_s`). Use it as a context manager or call `close`; an atexit hook flushes
    (at most `exit_flush_s`) when the interpreter exits.
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
        durability: str = "spool",
        fsync_interval_s: float | None = 0.005,
        max_queue: int = 10_000,
        batch_size: int = 500,
        linger_s: float = 0.2,
        retry_initial_s: float = 0.5,
        retry_max_s: float = 10.0,
        auth_retry_s: float = 60.0,
        orphan_scan_s: float = 10.0,
        exit_flush_s: float = 10.0,
    ) -> None:
        if durability not in DURABILITY:
            raise ConfigError(f"durability {durability!r} is not one of {DURABILITY}")
        self.transport = transport
        self.name = name
        self.project = project or env("PROJECT")
        self.actor = actor or env("ACTOR") or default_actor()
        self.producer = producer
        self.durability = durability
        self.exit_flush_s = exit_flush_s
        root = Path(spool_dir) if spool_dir else default_spool_dir(name)
        self.spool = open_own(root, fsync_interval_s=fsync_interval_s)
        wake = threading.Event()
        self._outbox = Outbox(
            self.spool,
            durable=durability == "spool",
            max_queue=max_queue,
            wake=wake,
            wake_every=batch_size,
        )
        self._delivery = Delivery(
            transport,
            self._outbox,
            name=name,
            batch_size=batch_size,
            linger_s=linger_s,
            backoff=Backoff(retry_initial_s, retry_max_s),
            auth=AuthWindow(auth_retry_s),
            wake=wake,
            claim=lambda: claim_orphans(root, self.spool.directory),
            orphan_scan_s=orphan_scan_s,
        )
        self._closed = False
        atexit.register(self._at_exit)

    def emit(self, event: Event) -> None:
        """Hand `event` over for delivery: with ``durability="spool"``, returns once it is
        written to the spool; never waits for the network."""
        if not isinstance(event, Event):
            raise TypeError(f"emit() takes a provgraph.schemas Event, not {type(event).__name__}")
        if self._closed:
            raise ClientError(f"emitter {self.name!r} is closed")
        data = event.to_json_bytes()
        if len(data) > MAX_EVENT_BYTES:
            reason = f"event is {len(data)} bytes, over MAX_EVENT_BYTES={MAX_EVENT_BYTES}"
            self._delivery.reject(self._outbox, RejectedError(reason, [event]))
            return
        self._outbox.put(event, data)

    def run(self, **options: Any) -> Run:
        """A run context manager: ``with emitter.run(experiment=..., params=...) as run:``.

        The options are those of `provgraph.client.run.Run`.
        """
        return Run(self, **options)

    def resume(self, run_id: str, **options: Any) -> Run:
        """A run context manager continuing `run_id` after an interruption: ``with
        emitter.resume(run_id, from_checkpoint=..., interruption_cause=..., steps_lost=...)
        as run:`` emits ``run.resumed`` on enter; the options are those of `Run.resume`.
        """
        return Run.resume(self, run_id, **options)

    @property
    def pending(self) -> int:
        """Events not yet delivered: this process's and those of earlier processes it sends."""
        return self._delivery.pending

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until every event emitted so far is delivered; False if `timeout` ran out.

        Undelivered events are not lost: they stay in the spool.
        """
        return self._delivery.flush(timeout)

    def close(self, timeout: float | None = 30.0) -> bool:
        """Flush (at most `timeout`), stop the sender and release the spool.

        Returns True when everything was delivered. What is left stays in the spool and is
        resent by the next emitter of the same name (or spool directory).
        """
        if self._closed:
            return self.pending == 0
        delivered = self._delivery.flush(timeout)
        self._closed = True
        self._delivery.stop()
        self.transport.close()
        left = self.spool.pending
        self.spool.close(remove=self.spool.directory.name.startswith(PID_PREFIX))
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

    def __exit__(self, *exc_info: object) -> None:
        self.close()  # whether the block failed or not: what was emitted is delivered or kept

    def _at_exit(self) -> None:
        self.close(timeout=self.exit_flush_s)
