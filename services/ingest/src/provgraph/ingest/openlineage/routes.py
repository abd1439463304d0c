"""OpenLineage's HTTP API: ``POST /api/v1/lineage`` (one event) and ``/api/v1/lineage/batch``.

The path is the one OpenLineage's HTTP transport and Marquez use, so an existing integration
only needs its URL pointed here. Each event is validated against the OpenLineage schema
(422 with the JSON path and message of every violation), wrapped in the provgraph envelope and
appended to the same event log, through the same producer path, as ``POST /v1/events``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from provgraph.authz import AuthError, Principal
from provgraph.authz.web import authenticate
from provgraph.ingest.app import (
    AcceptedEvent,
    Caller,
    Context,
    EventLogDep,
    IngestAccepted,
    IngestContext,
    ingest_items,
    parse_items,
    read_body,
)
from provgraph.ingest.errors import BatchValidationError, IngestError, InvalidBodyError
from provgraph.ingest.openlineage.settings import NamespaceMap, OpenLineageSettings
from provgraph.ingest.openlineage.spec import spec_errors
from provgraph.ingest.openlineage.wrap import WrapError, wrap
from provgraph.ingest.producer import EventLog
from provgraph.schemas import BatchError, ErrorCode


def get_namespace_map(request: Request) -> NamespaceMap:
    """The app's namespace map: `app.state.openlineage_names`, else built from the settings."""
    names = getattr(request.app.state, "openlineage_names", None)
    if not isinstance(names, NamespaceMap):
        names = OpenLineageSettings().namespace_map()
        request.app.state.openlineage_names = names
    return names


Names = Annotated[NamespaceMap, Depends(get_namespace_map)]
openlineage_router = APIRouter(
    prefix="/api/v1", tags=["openlineage"], dependencies=[Depends(authenticate)]
)


@openlineage_router.post("/lineage", status_code=201, response_model=IngestAccepted)
async def post_lineage(
    request: Request, context: Context, log: EventLogDep, names: Names, caller: Caller
) -> IngestAccepted:
    """One OpenLineage event (RunEvent, DatasetEvent or JobEvent) as a JSON object."""
    return await _ingest(request, context, (log, caller), names, batch=False)


@openlineage_router.post("/lineage/batch", status_code=201, response_model=IngestAccepted)
async def post_lineage_batch(
    request: Request, context: Context, log: EventLogDep, names: Names, caller: Caller
) -> IngestAccepted:
    """A JSON array of OpenLineage events: all are appended, or none when one is invalid."""
    return await _ingest(request, context, (log, caller), names, batch=True)


async def _ingest(
    request: Request,
    context: IngestContext,
    sink: tuple[EventLog, Principal],
    names: NamespaceMap,
    *,
    batch: bool,
) -> IngestAccepted:
    """Check, wrap, authorise (writer on each mapped project) and append; all or nothing."""
    log, caller = sink
    try:
        body = await read_body(request, context.settings.max_body_bytes)
        items = parse_items(body)
        if batch != isinstance(_first_json_char(body), list):
            raise InvalidBodyError(_shape_message(batch))
        wrapped = _wrap_all(items, names)
        appended = await run_in_threadpool(ingest_items, context, log, wrapped, caller)
    except (IngestError, AuthError) as exc:
        context.metrics.record_request(exc.status)
        raise
    context.metrics.record_request(201)
    events = [AcceptedEvent(**asdict(a)) for a in appended]
    return IngestAccepted(topic=context.settings.events_topic, accepted=len(events), events=events)


def _first_json_char(body: bytes) -> Any:
    return [] if body.lstrip()[:1] == b"[" else {}


def _shape_message(batch: bool) -> str:
    if batch:
        return "/api/v1/lineage/batch takes a JSON array of OpenLineage events"
    return "/api/v1/lineage takes one OpenLineage event (a JSON object); use /lineage/batch"


def _wrap_all(items: list[Any], names: NamespaceMap) -> list[dict[str, Any]]:
    """Every item checked and wrapped; a 422 listing every problem when any item is invalid."""
    out: list[dict[str, Any]] = []
    errors: list[BatchError] = []
    for index, item in enumerate(items):
        problems = spec_errors(item)
        errors += [BatchError(index, p.path, p.message, ErrorCode.INVALID_VALUE) for p in problems]
        if problems:
            continue
        try:
            out.append(wrap(item, names).model_dump(mode="json", exclude_none=True))
        except WrapError as exc:
            errors.append(BatchError(index, "$", str(exc), ErrorCode.INVALID_VALUE))
    if errors:
        raise BatchValidationError.of(len(items), errors)
    return out
