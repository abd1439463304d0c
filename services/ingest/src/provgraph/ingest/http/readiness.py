"""The readiness probe of the ingest service: is the event log reachable (answer cached)?"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from provgraph.client.errors import TransportError
from provgraph.client.eventlog import EventLog
from provgraph.ingest.http.errors import EventLogError, NotReadyError
from provgraph.ingest.settings import IngestSettings


def event_log_probe(log: EventLog, settings: IngestSettings) -> Callable[[], None]:
    """A check that raises `NotReadyError` (503, Retry-After) while `log` cannot be reached."""

    def check() -> None:
        try:
            log.check_reachable()
        except TransportError as exc:
            details = {"bootstrap": settings.kafka_bootstrap}
            raise NotReadyError(str(exc), details, retry_after_s=settings.retry_after_s) from exc

    return check


class ReadinessCache:
    """Runs a readiness check at most once per `ttl_s`; concurrent callers share one run."""

    def __init__(
        self,
        check: Callable[[], None],
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._check = check
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._checked_at: float | None = None
        self._error: EventLogError | None = None

    def check(self) -> None:
        """Return if the last answer (at most `ttl_s` old) was good; raise its error otherwise."""
        with self._lock:
            now = self._clock()
            if self._checked_at is None or now - self._checked_at >= self._ttl_s:
                self._error = self._run()
                self._checked_at = self._clock()
            error = self._error
        if error is not None:
            raise error

    def _run(self) -> EventLogError | None:
        try:
            self._check()
        except EventLogError as exc:
            return exc
        return None
