"""`GET /api/v1/namespaces`, `GET /api/v1/namespaces/{namespace}`.

A namespace is an OpenLineage namespace of a readable dataset or job, or a readable provgraph
project holding datasets or experiments born in provgraph (the two meet when an OpenLineage
namespace maps to a project of the same name).
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from provgraph.query.http.deps import MarquezDep, scope_for
from provgraph.query.http.marquez import shapes
from provgraph.query.http.marquez.common import PageQuery, marquez_router, not_found, or_404

router = marquez_router()


@router.get("/namespaces")
def list_namespaces(request: Request, reader: MarquezDep, page: PageQuery) -> dict[str, Any]:
    """The namespaces the caller can read, by name."""
    found = reader.namespaces(scope_for(request), limit=page.limit, offset=page.offset)
    return shapes.page("namespaces", found, shapes.namespace)


@router.get("/namespaces/{namespace}")
def get_namespace(request: Request, reader: MarquezDep, namespace: str) -> dict[str, Any]:
    """One namespace."""
    found = reader.namespaces(scope_for(request), name=namespace, limit=1)
    first = next(iter(found.items), None)
    return shapes.namespace(or_404(first, not_found("namespace", namespace=namespace)))
