"""The HTTP ingest app: POST /v1/events -> validate against the contract -> Kafka log.

At start it creates the event-log and dead-letter topics when missing and connects an
idempotent producer. The process entry is `provgraph.ingest.app`; docs/ingest.md is the API
reference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Response
from neo4j import Driver
from starlette.concurrency import run_in_threadpool

from provgraph.authz import PrincipalSource
from provgraph.authz.wiring import build_authenticator
from provgraph.client.eventlog import EventLog
from provgraph.core.eventlog import open_event_log
from provgraph.core.http import install_error_handlers
from provgraph.core.metrics import AnswerObserver
from provgraph.ingest.graphread import Neo4jDisciplineFacts, Neo4jOwners, Neo4jPayloadHashes
from provgraph.ingest.http.errors import EventLogUnavailableError
from provgraph.ingest.http.events import Context, IngestContext, events_router
from provgraph.ingest.http.integrity import PayloadHashes
from provgraph.ingest.http.metrics import IngestMetrics
from provgraph.ingest.http.openlineage import openlineage_router
from provgraph.ingest.http.readiness import ReadinessCache, event_log_probe
from provgraph.ingest.ports import FactsLookup, OwnerLookup
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas.version import __version__

# The probes stay open: no token needed.
probes_router = APIRouter(tags=["probes"])

# The routes that take events: every answer of theirs is counted by status, 401 and 403 too.
EVENT_ROUTES = frozenset(
    path
    for route in (*events_router.routes, *openlineage_router.routes)
    if isinstance(path := getattr(route, "path", None), str)
)


@probes_router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive and serving HTTP."""
    return {"status": "ok"}


@probes_router.get("/readyz")
async def readyz(context: Context) -> dict[str, str]:
    """Kafka answered a metadata request (answer cached for at most `ready_cache_s`)."""
    if context.readiness is None:
        raise EventLogUnavailableError("the ingest service is starting", retry_after_s=1)
    await run_in_threadpool(context.readiness.check)
    return {"status": "ready", "kafka": "reachable", "topic": context.settings.events_topic}


@probes_router.get("/metrics")
async def metrics(context: Context) -> Response:
    """Prometheus text exposition of this app's metrics."""
    payload, content_type = context.metrics.render()
    return Response(content=payload, media_type=content_type)


def _graph_reader(settings: IngestSettings) -> Driver:
    """A driver for ingest's reads of the graph: quiet, and failing within
    `graph_read_retry_s` while Neo4j is down (the request then answers 503)."""
    return settings.neo4j_driver(
        notifications_min_severity="OFF",
        max_transaction_retry_time=settings.graph_read_retry_s,
        connection_timeout=max(settings.graph_read_retry_s, 1.0),
    )


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    context = app.state.ingest
    assert isinstance(context, IngestContext)
    settings = context.settings
    if context.event_log is None:
        context.event_log = await run_in_threadpool(
            open_event_log, settings, client_id="provgraph-ingest"
        )
    log = context.event_log
    context.readiness = ReadinessCache(event_log_probe(log, settings), settings.ready_cache_s)
    driver = None
    if context.owners is None:  # ownership is checked even with authentication off
        driver = _graph_reader(settings)
        context.owners = Neo4jOwners(driver, settings.neo4j_database)
    hashes_driver = None
    if context.payload_hashes is None:  # event_id conflicts are checked even with auth off
        hashes_driver = driver or _graph_reader(settings)
        context.payload_hashes = Neo4jPayloadHashes(hashes_driver, settings.neo4j_database)
    facts_driver = None
    if context.facts is None:  # the records discipline is checked even with auth off
        facts_driver = hashes_driver or driver or _graph_reader(settings)
        context.facts = Neo4jDisciplineFacts(facts_driver, settings.neo4j_database)
    authenticator, close_auth = build_authenticator(
        settings, "ingest", source=context.principals, driver=driver
    )
    app.state.authenticator = authenticator
    try:
        yield
    finally:
        await run_in_threadpool(close_auth)
        if driver is not None:
            context.owners = None
            await run_in_threadpool(driver.close)
        if hashes_driver is not None:
            context.payload_hashes = None
            if hashes_driver is not driver:
                await run_in_threadpool(hashes_driver.close)
        if facts_driver is not None:
            context.facts = None
            if facts_driver is not hashes_driver and facts_driver is not driver:
                await run_in_threadpool(facts_driver.close)
        if context.owns_event_log:
            await run_in_threadpool(log.close)


def create_app(
    settings: IngestSettings | None = None,
    *,
    event_log: EventLog | None = None,
    principals: PrincipalSource | None = None,
    owners: OwnerLookup | None = None,
    payload_hashes: PayloadHashes | None = None,
    facts: FactsLookup | None = None,
) -> FastAPI:
    """The ingest app. Given an `event_log`, it uses that one and neither creates topics nor
    connects to Kafka itself (the caller owns and closes it). Given `principals`, tokens are
    looked up there instead of in Neo4j; given `owners`, the owners of entities too; given
    `payload_hashes`, the hashes of applied events too; given `facts`, the recorded
    environments and project policies too."""
    settings = settings if settings is not None else IngestSettings()
    app = FastAPI(title="provgraph ingest", version=__version__, lifespan=_lifespan)
    context = IngestContext(
        settings,
        IngestMetrics(),
        event_log=event_log,
        owns_event_log=event_log is None,
        principals=principals,
        owners=owners,
        payload_hashes=payload_hashes,
        facts=facts,
    )
    app.state.ingest = context
    app.add_middleware(AnswerObserver, on_answer=context.metrics.answers_of(EVENT_ROUTES))
    install_error_handlers(app)
    app.include_router(probes_router)
    app.include_router(events_router)
    app.include_router(openlineage_router)
    return app
