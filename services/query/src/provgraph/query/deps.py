"""What the query app's routes share, and the FastAPI dependencies (Annotated aliases) to get it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Annotated, Any

import neo4j
from fastapi import Depends, Request

from provgraph.authz.web import principal_of
from provgraph.query.cypher_guard import CypherGuard
from provgraph.query.errors import UnavailableError
from provgraph.query.metrics import QueryMetrics
from provgraph.query.model import Scope
from provgraph.query.ports import ReadModel
from provgraph.query.settings import QuerySettings


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
            return UnavailableError(f"Neo4j is not reachable: {exc}")
        return None


def neo4j_probe(driver: neo4j.Driver, database: str, timeout_s: float) -> Callable[[], None]:
    """`RETURN 1` in an auto-commit read (no driver retries: a probe must answer fast)."""

    def probe() -> None:
        with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session:
            session.run(neo4j.Query("RETURN 1", timeout=timeout_s)).consume()

    return probe


@dataclass
class QueryContext:
    """Settings and metrics from the start; driver, reader, recipes and guard once started."""

    settings: QuerySettings
    metrics: QueryMetrics
    driver: neo4j.Driver | None = None
    owns_driver: bool = True
    reader: ReadModel | None = None
    recipes: Any = None  # provgraph.query.recipes.Recipes, when installed
    guard: CypherGuard | None = None
    readiness: Readiness | None = None


def get_context(request: Request) -> QueryContext:
    context = request.app.state.query
    assert isinstance(context, QueryContext)
    return context


Context = Annotated[QueryContext, Depends(get_context)]


def get_settings(context: Context) -> QuerySettings:
    return context.settings


def get_reader(context: Context) -> ReadModel:
    if context.reader is None:
        raise UnavailableError("the read model is not available (starting, or not installed)")
    return context.reader


def get_guard(context: Context) -> CypherGuard:
    if context.guard is None:
        raise UnavailableError("the query service is starting")
    return context.guard


def get_readiness(context: Context) -> Readiness:
    if context.readiness is None:
        raise UnavailableError("the query service is starting")
    return context.readiness


def scope_for(request: Request | None) -> Scope:
    """The projects the caller may read: the one place the query service decides it.

    Over HTTP, the caller is the principal `authenticate` stored on the request (401 without
    one). Without a request (in-process callers: the CLI, tests), every project.
    """
    if request is None:
        return Scope.everything()
    readable = principal_of(request).readable_projects()
    return Scope.everything() if readable is None else Scope(readable)


SettingsDep = Annotated[QuerySettings, Depends(get_settings)]
ReaderDep = Annotated[ReadModel, Depends(get_reader)]
GuardDep = Annotated[CypherGuard, Depends(get_guard)]
ReadinessDep = Annotated[Readiness, Depends(get_readiness)]
