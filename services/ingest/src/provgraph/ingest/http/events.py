"""``POST /v1/events`` and the path every ingest route shares: read, parse, check, append.

A body is read (bounded by `max_body_bytes`), parsed into items, validated against the
contract, authorised for the caller and appended to the event log, all or nothing; the
OpenLineage routes (`provgraph.ingest.http.openlineage`) turn their items into provgraph
events and take the same path.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from provgraph.authz import AuthError, Principal, PrincipalSource, authorize_events
from provgraph.authz.web import authenticate
from provgraph.client.errors import TransportError
from provgraph.client.eventlog import PRINCIPAL_HEADER, Appended, EventLog
from provgraph.ingest.http.errors import (
    BatchValidationError,
    BodyTooLargeError,
    ConclusionRequiredError,
    EnvironmentChangedError,
    EventIdConflictError,
    EventLogUnavailableError,
    GraphUnavailableError,
    InvalidBodyError,
    MalformedJsonError,
    RecordIncompleteError,
    RequestError,
    TooManyEventsError,
    append_failed,
)
from provgraph.ingest.http.integrity import (
    PayloadHashes,
    batch_duplicates,
    check_applied,
    check_discipline,
    future_events,
)
from provgraph.ingest.http.metrics import IngestMetrics
from provgraph.ingest.http.readiness import ReadinessCache
from provgraph.ingest.ports import FactsLookup, OwnerLookup
from provgraph.ingest.screening import authorize_ownership
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import MAX_BATCH_EVENTS, Event, validate_batch
from provgraph.schemas.limits import MAX_JSON_DEPTH

logger = logging.getLogger(__name__)

# Between two steps of one request (`_append`): more than a millisecond, the append time's
# resolution, so the broker stamps the next step's events later than the last one's.
_STEP_GAP_S = 0.002


@dataclass
class IngestContext:
    """What the routes of one app share: settings, metrics, and (after start) the event log."""

    settings: IngestSettings
    metrics: IngestMetrics
    event_log: EventLog | None = None
    readiness: ReadinessCache | None = None
    owns_event_log: bool = True
    principals: PrincipalSource | None = None  # None: Neo4j, from the settings
    owners: OwnerLookup | None = None  # who owns what (None until the lifespan reads Neo4j)
    payload_hashes: PayloadHashes | None = None  # applied events' hashes (likewise)
    facts: FactsLookup | None = None  # recorded environments and project policies (likewise)


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
        # ASCII digits only ("²".isdigit() is true, int() refuses it), and never int() of
        # thousands of digits (Python refuses those too): a long number is too large anyway.
        if not (declared.isascii() and declared.isdigit()):
            raise RequestError(f"Content-Length {declared[:40]!r} is not a byte count")
        digits = declared.lstrip("0") or "0"
        if len(digits) > len(str(limit)) or int(digits) > limit:
            raise _body_too_large(limit, int(digits) if len(digits) < 40 else None)
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
    events = _validated(context, items)
    try:
        authorize_events(caller, events)
        authorize_ownership(caller, events, _owners(context))
    except AuthError as exc:
        context.metrics.record_rejected(exc.code, len(events))
        raise
    applied = _check_applied(context, events)
    steps = _check_discipline(context, events, applied)
    return _append(context, log, events, caller, steps)


def _validated(context: IngestContext, items: list[Any]) -> list[Event]:
    """The events of `items`: each by the contract, then the batch as a whole (an event_id
    with two payloads) and against the server's clock; 422 listing every problem."""
    # A string item would be read as JSON text by the contract: wrap it so it stays a string.
    # Any other non-object only needs its kind named: an array is not serialised again.
    wire = [item if isinstance(item, dict) else json.dumps(_shallow(item)) for item in items]
    events, errors = validate_batch(wire)
    if not errors:  # indexes of `events` are those of `items` only when all are valid
        errors = batch_duplicates(events)
        errors += future_events(events, context.settings.max_clock_skew_s)
    if errors:
        context.metrics.record_rejected(BatchValidationError.code, len(items))
        raise BatchValidationError.of(len(items), errors)
    return events


def _shallow(item: Any) -> Any:
    return [] if isinstance(item, list) else item


def _check_applied(context: IngestContext, events: list[Event]) -> set[str]:
    """409 when an event_id is already applied with another payload (the graph says so)."""
    if context.payload_hashes is None:  # only before the lifespan started
        raise EventLogUnavailableError("the ingest service is starting", retry_after_s=1)
    try:
        return check_applied(events, context.payload_hashes, context.settings.retry_after_s)
    except (EventIdConflictError, GraphUnavailableError) as exc:
        context.metrics.record_rejected(exc.code, len(events))
        raise


def _check_discipline(context: IngestContext, events: list[Event], applied: set[str]) -> list[int]:
    """409 when a snapshot changes a recorded environment, 422 when a run.completed lacks the
    conclusion its project requires or a record another element it requires
    (`integrity.check_discipline`); else where the batch is appended in steps."""
    if context.facts is None:  # only before the lifespan started
        raise EventLogUnavailableError("the ingest service is starting", retry_after_s=1)
    try:
        return check_discipline(events, context.facts, applied, context.settings.retry_after_s)
    except (
        EnvironmentChangedError,
        ConclusionRequiredError,
        RecordIncompleteError,
        GraphUnavailableError,
    ) as exc:
        context.metrics.record_rejected(exc.code, len(events))
        raise


def _append(
    context: IngestContext,
    log: EventLog,
    events: list[Event],
    caller: Principal,
    steps: Sequence[int] = (0,),
) -> list[Appended]:
    """Append the batch, each event stamped with the authenticated principal (a header), in
    `steps` (indexes starting each): a step is sent once the one before it is acknowledged
    and a millisecond has passed, so its events get later append times on every partition
    (`discipline.append_steps`). A step that fails leaves the earlier ones appended; the
    caller's retry sends them again as no-ops (the same event_id and payload)."""
    stamp = [(PRINCIPAL_HEADER, f"principal:{caller.name}".encode())]
    started = time.perf_counter()
    bounds = [*steps, len(events)]
    appended: list[Appended] = []
    try:
        for n, (begin, end) in enumerate(itertools.pairwise(bounds)):
            if n:
                time.sleep(_STEP_GAP_S)
            appended += log.append(events[begin:end], headers=[stamp] * (end - begin))
    except TransportError as exc:
        settings = context.settings
        error = append_failed(exc, settings.events_topic, settings.retry_after_s)
        logger.warning("batch of %d events not appended: %s", len(events), exc)
        context.metrics.record_rejected(error.code, len(events))
        raise error from exc
    context.metrics.record_accepted(len(appended), time.perf_counter() - started)
    return appended


def _owners(context: IngestContext) -> OwnerLookup:
    if context.owners is None:  # only before the lifespan started
        raise EventLogUnavailableError("the ingest service is starting", retry_after_s=1)
    return context.owners


def _decode_json(body: bytes) -> Any:
    if not body.strip():
        raise MalformedJsonError("the body is empty: send one event or a JSON array of events")
    try:
        return json.loads(body, parse_constant=_refuse_constant)
    except RecursionError:  # deeper than the parser's stack, far beyond any event's depth
        raise MalformedJsonError(
            "the body nests arrays and objects too deeply to read; free-form values of an "
            f"event may nest at most MAX_JSON_DEPTH={MAX_JSON_DEPTH} levels"
        ) from None
    except UnicodeDecodeError as exc:
        raise MalformedJsonError(f"the body is not UTF-8 text: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        where = {"line": exc.lineno, "column": exc.colno, "position": exc.pos}
        message = f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise MalformedJsonError(message, where) from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # Python's guard against huge integers
            limit = sys.get_int_max_str_digits()
            message = f"the body holds an integer of more than {limit} digits"
            raise MalformedJsonError(message) from None
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
