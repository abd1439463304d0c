"""The HTTP ingest service: POST /v1/events -> validate against the contract -> Kafka log.

Run it with ``python -m provgraph.ingest.app`` (on PROVGRAPH_INGEST_HOST:PORT) or
``uvicorn provgraph.ingest.app:create_app --factory``; settings come from PROVGRAPH_* vars.
At start it creates the event-log and dead-letter topics when missing and connects an
idempotent producer. docs/ingest.md is the API reference.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from kafka.errors import KafkaError
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from provgraph.authz import AuthError, Principal, PrincipalSource, authorize_events
from provgraph.authz.web import authenticate
from provgraph.authz.wiring import build_authenticator
from provgraph.ingest.errors import (
    BatchValidationError,
    BodyTooLargeError,
    EventLogError,
    EventLogUnavailableError,
    IngestError,
    InvalidBodyError,
    MalformedJsonError,
    RequestError,
    TooManyEventsError,
)
from provgraph.ingest.handlers import install_error_handlers
from provgraph.ingest.metrics import IngestMetrics
from provgraph.ingest.producer import Appended, EventLog, KafkaEventLog, ReadinessCache
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.topics import ensure_topics
from provgraph.schemas import MAX_BATCH_EVENTS, validate_batch
from provgraph.schemas.version import __version__

logger = logging.getLogger(__name__)


@dataclass
class IngestContext:
    """What the routes of one app share: settings, metrics, and (after start) the event log."""

    settings: IngestSettings
    metrics: IngestMetrics
    event_log: EventLog | None = None
    readiness: ReadinessCache | None = None
    owns_event_log: bool = True
    principals: PrincipalSource | None = None  # None: Neo4j, from the settings


class AcceptedEvent(BaseModel):
    """One event acknowledged by Kafka."""

    event_id: str
    partition: int
    offset: int


class IngestAccepted(BaseModel):
    """The 202 answer: every event of the batch, in request order, with its log position."""

    topic: str
    accepted: int
    events: list[AcceptedEvent]


def get_context(request: Request) -> IngestContext:
    context = request.app.state.ingest
    assert isinstance(context, IngestContext)
    return context


def get_event_log(context: Annotated[IngestContext, Depends(get_context)]) -> EventLog:
    if context.event_log is None:  # only before the lifespan started
        raise EventLogUnavailableError("the ingest service is starting", retry_after_s=1)
    return context.event_log


Context = Annotated[IngestContext, Depends(get_context)]
EventLogDep = Annotated[EventLog, Depends(get_event_log)]
Caller = Annotated[Principal, Depends(authenticate)]

# Every route under /v1 needs a valid token; the probes stay open.
events_router = APIRouter(prefix="/v1", tags=["events"], dependencies=[Depends(authenticate)])
probes_router = APIRouter(tags=["probes"])


@events_router.post("/events", status_code=202, response_model=IngestAccepted)
async def post_events(
    request: Request, context: Context, log: EventLogDep, caller: Caller
) -> IngestAccepted:
    """Validate one event (a JSON object) or a batch (a JSON array) and append it to the log."""
    try:
        body = await read_body(request, context.settings.max_body_bytes)
        items = parse_items(body)
        appended = await run_in_threadpool(ingest_items, context, log, items, caller)
    except (IngestError, AuthError) as exc:
        context.metrics.record_request(exc.status)
        raise
    context.metrics.record_request(202)
    events = [AcceptedEvent(**asdict(a)) for a in appended]
    return IngestAccepted(topic=context.settings.events_topic, accepted=len(events), events=events)


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


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 once it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise RequestError(f"Content-Length {declared!r} is not a byte count")
        if int(declared) > limit:
            raise _body_too_large(limit, int(declared))
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:  # a chunked body, or a Content-Length that lied
            raise _body_too_large(limit, None)
    return bytes(body)


def parse_items(body: bytes) -> list[Any]:
    """The events of a body: an object is one event, an array a batch of at most 1000."""
    data = _decode_json(body)
    if isinstance(data, dict):
        return [data]
    if not isinstance(data, list):
        raise InvalidBodyError(
            f"expected one event (a JSON object) or a batch (a JSON array), got {_kind(data)}"
        )
    if not data:
        raise InvalidBodyError("the batch is empty: send at least one event")
    if len(data) > MAX_BATCH_EVENTS:
        raise TooManyEventsError(
            f"the batch holds {len(data)} events, more than MAX_BATCH_EVENTS={MAX_BATCH_EVENTS}",
            {"events": len(data), "max_events": MAX_BATCH_EVENTS},
        )
    return data


def ingest_items(
    context: IngestContext, log: EventLog, items: list[Any], caller: Principal
) -> list[Appended]:
    """Validate and authorise every item; append the batch only when all pass (blocking)."""
    # A string item would be read as JSON text by the contract: wrap it so it stays a string.
    wire = [item if isinstance(item, dict) else json.dumps(item) for item in items]
    events, errors = validate_batch(wire)
    if errors:
        context.metrics.record_rejected(BatchValidationError.code, len(items))
        raise BatchValidationError.of(len(items), errors)
    try:
        authorize_events(caller, events)
    except AuthError as exc:
        context.metrics.record_rejected(exc.code, len(events))
        raise
    started = time.perf_counter()
    try:
        appended = log.append(events)
    except EventLogError as exc:
        logger.warning("batch of %d events not appended: %s", len(events), exc)
        context.metrics.record_rejected(exc.code, len(events))
        raise
    context.metrics.record_accepted(len(appended), time.perf_counter() - started)
    return appended


def _decode_json(body: bytes) -> Any:
    if not body.strip():
        raise MalformedJsonError("the body is empty: send one event or a JSON array of events")
    try:
        return json.loads(body, parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise MalformedJsonError(f"the body is not UTF-8 text: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        where = {"line": exc.lineno, "column": exc.colno, "position": exc.pos}
        message = f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise MalformedJsonError(message, where) from None
    except ValueError as exc:
        raise MalformedJsonError(f"the body is not valid JSON: {exc}") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _body_too_large(limit: int, declared: int | None) -> BodyTooLargeError:
    size = f"{declared} bytes" if declared is not None else "more"
    return BodyTooLargeError(
        f"the body is {size}, over the limit of {limit} bytes; split the batch",
        {"max_body_bytes": limit, "content_length": declared},
    )


def _kind(value: object) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    return names.get(type(value), "null")


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    context = app.state.ingest
    assert isinstance(context, IngestContext)
    if context.event_log is None:
        context.event_log = await run_in_threadpool(_connect, context.settings)
    log = context.event_log
    context.readiness = ReadinessCache(log.check_reachable, context.settings.ready_cache_s)
    authenticator, close_auth = build_authenticator(
        context.settings, "ingest", source=context.principals
    )
    app.state.authenticator = authenticator
    try:
        yield
    finally:
        await run_in_threadpool(close_auth)
        if context.owns_event_log:
            await run_in_threadpool(log.close)


def _connect(settings: IngestSettings) -> EventLog:
    try:
        created = ensure_topics(settings)
    except KafkaError as exc:
        raise EventLogUnavailableError(f"cannot create the event-log topics: {exc}") from exc
    if created:
        logger.info("created topics %s", ", ".join(created))
    return KafkaEventLog.connect(settings)


def create_app(
    settings: IngestSettings | None = None,
    *,
    event_log: EventLog | None = None,
    principals: PrincipalSource | None = None,
) -> FastAPI:
    """The ingest app. Given an `event_log`, it uses that one and neither creates topics nor
    connects to Kafka itself (the caller owns and closes it). Given `principals`, tokens are
    looked up there instead of in Neo4j."""
    settings = settings if settings is not None else IngestSettings()
    app = FastAPI(title="provgraph ingest", version=__version__, lifespan=_lifespan)
    app.state.ingest = IngestContext(
        settings,
        IngestMetrics(),
        event_log=event_log,
        owns_event_log=event_log is None,
        principals=principals,
    )
    install_error_handlers(app)
    app.include_router(probes_router)
    app.include_router(events_router)
    from provgraph.ingest.openlineage.routes import openlineage_router  # imports this module

    app.include_router(openlineage_router)
    return app


def serve(settings: IngestSettings | None = None) -> None:
    """Serve the ingest app on `ingest_host:ingest_port` until interrupted."""
    import uvicorn

    settings = settings if settings is not None else IngestSettings()
    app = create_app(settings)
    uvicorn.run(app, host=settings.ingest_host, port=settings.ingest_port, log_level="info")


if __name__ == "__main__":
    serve()
