"""The read-only Cypher endpoint, `POST /v1/cypher`, for global auditors (docs/cypher.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from provgraph.authz import ForbiddenError, Principal
from provgraph.authz.web import authenticate
from provgraph.query.errors import ForbiddenQueryError
from provgraph.query.http.deps import Context, GuardDep

# Arbitrary Cypher cannot be filtered per project: global auditors (and admins) only.
router = APIRouter(prefix="/v1", tags=["cypher"], dependencies=[Depends(authenticate)])
Caller = Annotated[Principal, Depends(authenticate)]


class CypherRequest(BaseModel):
    """A read-only Cypher query; values travel in `parameters`, never inside the text."""

    query: str
    parameters: dict[str, Any] = Field(default_factory=dict)


@router.post("/cypher")
def post_cypher(
    body: CypherRequest, guard: GuardDep, context: Context, caller: Caller
) -> dict[str, Any]:
    """Run `query` if it is read-only: {columns, rows, truncated, row_count}."""
    if not caller.may_use_cypher:
        raise ForbiddenError(
            "the Cypher endpoint needs the global auditor role: arbitrary Cypher cannot be "
            "filtered per project; use GraphQL or /api/v1/lineage",
            right="global auditor",
        )
    try:
        return guard.run(body.query, body.parameters).to_dict()
    except ForbiddenQueryError:
        context.metrics.cypher_refused.inc()
        raise
