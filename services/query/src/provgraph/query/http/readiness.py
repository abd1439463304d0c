"""Neo4j readiness: `RETURN 1` answered in time, checked at most once per time-to-live."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import neo4j

from provgraph.core.errors import UnavailableError

logger = logging.getLogger(__name__)


class Readiness:
    """Answers "does Neo4j answer `RETURN 1` within `timeout_s`?", at most once per `ttl_s`.

    The probe runs in a worker thread so that a hung connection cannot hold the probe request
    longer than `timeout_s`; concurrent callers share one answer.
    """

    def __init__(
        self,
        probe: Callable[[], None],
        *,
        ttl_s: float = 2.0,
        timeout_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._probe = probe
        self._ttl_s = ttl_s
        self._timeout_s = timeout_s
        self._clock = clock
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="readyz")
        self._pending: Future[None] | None = None
        self._checked_at: float | None = None
        self._error: UnavailableError | None = None

    def check(self) -> None:
        """Return when the latest answer (at most `ttl_s` old) was good; raise it otherwise."""
        with self._lock:
            if self._checked_at is None or self._clock() - self._checked_at >= self._ttl_s:
                self._error = self._probe_once()
                self._checked_at = self._clock()
            error = self._error
        if error is not None:
            raise error

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _probe_once(self) -> UnavailableError | None:
        if self._pending is not None and not self._pending.done():
            return UnavailableError("Neo4j has not yet answered the previous readiness probe")
        self._pending = self._executor.submit(self._probe)
        try:
            self._pending.result(timeout=self._timeout_s)
        except FutureTimeout:
            return UnavailableError(f"Neo4j did not answer within {self._timeout_s:g} s")
        except Exception as exc:  # any failure of the probe means: not ready
            logger.warning("readiness probe failed: %s", exc)
            return UnavailableError("Neo4j is not reachable")
        return None


def neo4j_probe(driver: neo4j.Driver, database: str, timeout_s: float) -> Callable[[], None]:
    """`RETURN 1` in an auto-commit read (no driver retries: a probe must answer fast)."""

    def probe() -> None:
        with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session:
            session.run(neo4j.Query("RETURN 1", timeout=timeout_s)).consume()

    return probe
