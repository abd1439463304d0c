"""OpenLineage's HTTP API: ``POST /api/v1/lineage`` (one event) and ``/api/v1/lineage/batch``.

The path is the one OpenLineage's HTTP transport and Marquez use, so an existing integration
only needs its URL pointed here. Each event is validated against the OpenLineage schema
(422 with the JSON path and message of every violation), wrapped in the provgraph envelope and
appended to the same event log, through the same producer path, as ``POST /v1/events``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from provgraph.authz.web import authenticate
from provgraph.ingest.http.errors import BatchValidationError, InvalidBodyError
from provgraph.ingest.http.events import (
    Caller,
    Context,
    EventLogDep,
    IngestAccepted,
    accept,
    get_context,
    parse_items,
)
from provgraph.ingest.openlineage.names import NamespaceMap
from provgraph.ingest.openlineage.spec import spec_errors
from provgraph.ingest.openlineage.wrap import WrapError, wrap
from provgraph.schemas import BatchError, ErrorCode


def get_namespace_map(request: Request) -> NamespaceMap:
    """The app's namespace map: `app.state.openlineage_names`, else built from its settings."""
    names = getattr(request.app.state, "openlineage_names", None)
    if not isinstance(names, NamespaceMap):
        names = NamespaceMap(get_context(request).settings.openlineage_namespace_projects)
        request.app.state.openlineage_names = names
    return names


Names = Annotated[NamespaceMap, Depends(get_namespace_map)]
openlineage_router = APIRouter(
    prefix="/api/v1", tags=["openlineage"], dependencies=[Depends(authenticate)]
)


def _add_lineage_route(path: str, name: str, description: str, *, batch: bool) -> None:
    """``POST <path>``: one OpenLineage event, or with `batch` a JSON array of them."""

    async def endpoint(
        request: Request, context: Context, log: EventLogDep, names: Names, caller: Caller
    ) -> IngestAccepted:
        return await accept(request, context, (log, caller), _items_of(names, batch=batch))

    openlineage_router.add_api_route(
        path,
        endpoint,
        methods=["POST"],
        name=name,
        description=description,
        status_code=201,
        response_model=IngestAccepted,
    )


_add_lineage_route(
    "/lineage",
    "post_lineage",
    "One OpenLineage event (RunEvent, DatasetEvent or JobEvent) as a JSON object.",
    batch=False,
)
_add_lineage_route(
    "/lineage/batch",
    "post_lineage_batch",
    "A JSON array of OpenLineage events: all are appended, or none when one is invalid.",
    batch=True,
)


def _items_of(names: NamespaceMap, *, batch: bool) -> Callable[[bytes], list[Any]]:
    """Body -> provgraph events: checked against the OpenLineage schema and wrapped; the
    writer right on each mapped project is then checked like any event's."""

    def items(body: bytes) -> list[Any]:
        parsed = parse_items(body)
        if batch != isinstance(_first_json_char(body), list):
            raise InvalidBodyError(_shape_message(batch))
        return _wrap_all(parsed, names)

    return items


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
        errors += [BatchError(index, p.path, p.reason, p.code) for p in problems]
        if problems:
            continue
        try:
            out.append(wrap(item, names).model_dump(mode="json", exclude_none=True))
        except WrapError as exc:
            errors.append(BatchError(index, "$", str(exc), ErrorCode.INVALID_VALUE))
    if errors:
        raise BatchValidationError.of(len(items), errors)
    return out
