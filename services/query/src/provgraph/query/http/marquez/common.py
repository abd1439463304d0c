"""What the Marquez routes share: the router factory, the page and depth parameters, the
look-up-or-404.

Parameters take what Marquez takes: any non-negative `limit` and `offset`, any `depth`. Where
provgraph keeps a ceiling (`PROVGRAPH_PAGE_MAX_SIZE` items a page, `PROVGRAPH_LINEAGE_MAX_DEPTH`
hops), it serves at most that much and never refuses the question: a page keeps its true
`totalCount`, a deeper walk is walked to the ceiling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import APIRouter, Depends, Query

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.http.marquez.paths import EncodedSegmentRoute

DEFAULT_LIMIT = 100
"""Marquez's default page size (served up to `PROVGRAPH_PAGE_MAX_SIZE` by the reader)."""
MARQUEZ_DEFAULT_DEPTH = 20
"""Marquez's default depth of its lineage and column-lineage walks."""

T = TypeVar("T")

Limit = Annotated[
    int, Query(ge=0, description="items asked (at most PROVGRAPH_PAGE_MAX_SIZE served)")
]
Offset = Annotated[int, Query(ge=0, description="items skipped")]
Depth = Annotated[int | None, Query(description="hops (walked up to PROVGRAPH_LINEAGE_MAX_DEPTH)")]


@dataclass(frozen=True)
class PageAsked:
    """The page a Marquez list was asked for: its `limit` and `offset` query parameters."""

    limit: int
    offset: int


def page_asked(limit: Limit = DEFAULT_LIMIT, offset: Offset = 0) -> PageAsked:
    """The `limit` and `offset` of a list route, with Marquez's defaults."""
    return PageAsked(limit=limit, offset=offset)


PageQuery = Annotated[PageAsked, Depends(page_asked)]


def walk_depth(asked: int | None, default: int, maximum: int) -> int:
    """The depth walked for Marquez's `depth`: `default` when absent, else `asked` within
    [1, maximum]. Marquez takes any integer (0 and below: the start and its neighbours)."""
    chosen = default if asked is None else asked
    return max(1, min(chosen, maximum))


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


def or_404(found: T | None, missing: NotFoundError) -> T:
    """What a look-up found, or `missing` raised when it found nothing (None): absent and
    unreadable alike."""
    if found is None:
        raise missing
    return found
