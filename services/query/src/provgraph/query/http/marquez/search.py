"""`GET /api/v1/search?q=&filter=&sort=&limit=`: datasets and jobs by name, Marquez's shape
`{totalCount, results: [{type, name, namespace, nodeId, updatedAt}]}`.

`q` (not blank) matches names case-insensitively anywhere, `%` standing for any text and `_`
for one character (as in Marquez); `filter` is `dataset` or `job`; `sort` is `name` (the
default) or `updated_at` (newest first), read as Marquez reads them (any case, `-` for `_`);
`limit` is any non-negative integer (at most `PROVGRAPH_PAGE_MAX_SIZE` results served,
`totalCount` counting every match). `nodeId` is an id `GET /api/v1/lineage` accepts.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Request

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.deps import MarquezDep, scope_for
from provgraph.query.http.marquez import shapes
from provgraph.query.http.marquez.common import Limit, marquez_router
from provgraph.query.http.marquez.ids import search_pattern
from provgraph.schemas.graph import Label

SEARCH_DEFAULT_LIMIT = 10
KINDS: dict[str, tuple[str, ...]] = {
    "dataset": (Label.DATASET.value,),
    "job": (Label.JOB.value, Label.EXPERIMENT.value),
}
SORTS = {"name": False, "updated_at": True, "update_at": True}

router = marquez_router()


@router.get("/search")
def search(
    request: Request,
    reader: MarquezDep,
    q: Annotated[str, Query(min_length=1, max_length=1024)],
    filter: str | None = None,
    sort: str | None = None,
    limit: Limit = SEARCH_DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Datasets and jobs whose name matches `q`."""
    if not q.strip():
        raise InvalidArgumentError("q must not be blank", q=q)
    kinds = KINDS.get(enum_key(filter)) if filter else ()
    if kinds is None:
        raise InvalidArgumentError("filter must be 'dataset' or 'job'", filter=filter)
    by_update = SORTS.get(enum_key(sort)) if sort else False
    if by_update is None:
        raise InvalidArgumentError("sort must be 'name' or 'updated_at'", sort=sort)
    found = reader.marquez_search(
        search_pattern(q), scope_for(request), kinds=kinds, by_update=by_update, limit=limit
    )
    return {"totalCount": found.total, "results": [shapes.search_result(n) for n in found.items]}


def enum_key(text: str) -> str:
    """A `filter` or `sort` value as Marquez matches its choices: trimmed, any case, `-`, `.`
    and spaces standing for `_`."""
    return text.strip().lower().replace("-", "_").replace(".", "_").replace(" ", "_")
