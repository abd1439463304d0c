"""`GET /v1/prov/{id}?format=prov-json|prov-n|prov-xml&direction=up|down&depth=N`: the lineage of
a node as a W3C PROV document (`recipes/prov_export.py`), as `provgraph export` writes it.

In the caller's scope: a node the token may not read is `not_found` (404), like one that does
not exist, and the walk never passes through a node it may not read. `depth` defaults to
PROVGRAPH_LINEAGE_DEFAULT_DEPTH; outside 1..PROVGRAPH_LINEAGE_MAX_DEPTH it is refused
(`invalid_argument`, 400), as GraphQL's `lineage` refuses it. A walk that hit the node cap says
so in the `Provgraph-Truncated: true` header.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.http.deps import Context, get_readers, scope_for
from provgraph.query.ids import checked_id
from provgraph.query.recipes.prov_export import (
    export_direction,
    export_format,
    exporter,
    serialized,
)

router = APIRouter(prefix="/v1", tags=["prov"], dependencies=[Depends(authenticate)])

TRUNCATED_HEADER = "Provgraph-Truncated"


@router.get("/prov/{node_id:path}")
def get_prov(
    request: Request,
    context: Context,
    node_id: str,
    format: Annotated[str, Query(description="prov-json (default), prov-n or prov-xml")] = (
        "prov-json"
    ),
    direction: Annotated[str, Query(description="up (default) or down")] = "up",
    depth: Annotated[int | None, Query(description="hops, 1..PROVGRAPH_LINEAGE_MAX_DEPTH")] = None,
) -> Response:
    """The PROV document of `node_id`'s lineage, in `format`."""
    checked_id("id", node_id)
    _, media_type = export_format(format)
    walk, settings = export_direction(direction), context.settings
    found = exporter(get_readers(context), settings).export(
        node_id,
        scope_for(request),
        direction=walk,
        depth=settings.lineage_default_depth if depth is None else depth,
    )
    if found is None:
        raise NotFoundError(f"Not found: {node_id}.", node_id=node_id)
    headers = {TRUNCATED_HEADER: "true"} if found.truncated else {}
    return Response(serialized(found.document, format), media_type=media_type, headers=headers)
