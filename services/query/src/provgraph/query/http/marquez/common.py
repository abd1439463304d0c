"""What the Marquez routers share: the router factory, the page parameters, not-found."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.http.marquez.paths import EncodedSegmentRoute

DEFAULT_LIMIT = 100
"""Marquez's default page size (bounded by `PROVGRAPH_PAGE_MAX_SIZE` in the reader)."""

Limit = Annotated[int, Query(ge=1)]
Offset = Annotated[int, Query(ge=0)]


def marquez_router() -> APIRouter:
    """A router of the Marquez API: under /api/v1, every route authenticated, names in paths
    matched as whole encoded segments."""
    return APIRouter(
        prefix="/api/v1",
        tags=["marquez"],
        dependencies=[Depends(authenticate)],
        route_class=EncodedSegmentRoute,
    )


def not_found(kind: str, **key: str) -> NotFoundError:
    """The 404 of a namespace, dataset, version, job or run the caller cannot see."""
    named = ", ".join(f"{k} {v!r}" for k, v in key.items())
    return NotFoundError(f"no {kind} with {named}", dict(key))
