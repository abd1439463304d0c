"""``POST /v1/events`` and the path every ingest route shares: read, parse, check, append.

A body is read (bounded by `max_body_bytes`), parsed into items, validated against the
contract, authorised for the caller and appended to the event log, all or nothing; the
OpenLineage routes (`provgraph.ingest.openlineage.routes`) turn their items into provgraph
events and take the same path.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from provgraph.authz import AuthError, Principal, PrincipalSource, authorize_events
from provgraph.authz.web import authenticate
from provgraph.client.errors import TransportError
from provgraph.client.eventlog import Appended, EventLog
from provgraph.ingest.errors import (
    BatchValidationError,
    BodyTooLargeError,
    EventLogUnavailableError,
    InvalidBodyError,
    MalformedJsonError,
    RequestError,
    TooManyEventsError,
    append_failed,
)
from provgraph.ingest.metrics import IngestMetrics
from provgraph.ingest.readiness import ReadinessCache
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import MAX_BATCH_EVENTS, validate_batch

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

# Every route under /v1 needs a valid token.
events_router = APIRouter(prefix="/v1", tags=["events"], dependencies=[Depends(authenticate)])


@events_router.post("/events", status_code=202, response_model=IngestAccepted)
async def post_events(
    request: Request, context: Context, log: EventLogDep, caller: Caller
) -> IngestAccepted:
    """Validate one event (a JSON object) or a batch (a JSON array) and append it to the log."""
    return await accept(request, context, (log, caller), parse_items)


async def accept(
    request: Request,
    context: IngestContext,
    sink: tuple[EventLog, Principal],
    items_of: Callable[[bytes], list[Any]],
) -> IngestAccepted:
    """Read the body, make it items (`items_of`), check and append them."""
    log, caller = sink
    body = await read_body(request, context.settings.max_body_bytes)
    items = items_of(body)
    appended = await run_in_threadpool(ingest_items, context, log, items, caller)
    events = [AcceptedEvent(**asdict(a)) for a in appended]
    return IngestAccepted(topic=context.settings.events_topic, accepted=len(events), events=events)


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
    except TransportError as exc:
        settings = context.settings
        error = append_failed(exc, settings.events_topic, settings.retry_after_s)
        logger.warning("batch of %d events not appended: %s", len(events), exc)
        context.metrics.record_rejected(error.code, len(events))
        raise error from exc
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
