"""Datasets and their versions: `GET /api/v1/namespaces/{namespace}/datasets[/{dataset}
[/versions[/{version}]]]`. A dataset name may hold `/` and `:` (sent encoded)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from provgraph.query.http.deps import MarquezDep, scope_for
from provgraph.query.http.marquez import shapes
from provgraph.query.http.marquez.common import PageQuery, marquez_router, not_found, or_404

router = marquez_router()


@router.get("/namespaces/{namespace}/datasets")
def list_datasets(
    request: Request, reader: MarquezDep, namespace: str, page: PageQuery
) -> dict[str, Any]:
    """The live datasets of a namespace, by name."""
    found = reader.datasets(namespace, scope_for(request), limit=page.limit, offset=page.offset)
    return shapes.page("datasets", found, shapes.dataset)


@router.get("/namespaces/{namespace}/datasets/{dataset}")
def get_dataset(
    request: Request, reader: MarquezDep, namespace: str, dataset: str
) -> dict[str, Any]:
    """One dataset, with its current version (the latest created), facets and fields."""
    found = reader.dataset(namespace, dataset, scope_for(request))
    return shapes.dataset(or_404(found, not_found("dataset", namespace=namespace, dataset=dataset)))


@router.get("/namespaces/{namespace}/datasets/{dataset}/versions")
def list_dataset_versions(
    request: Request, reader: MarquezDep, namespace: str, dataset: str, page: PageQuery
) -> dict[str, Any]:
    """The versions of a dataset, newest first."""
    scope = scope_for(request)
    found = reader.dataset_versions(namespace, dataset, scope, limit=page.limit, offset=page.offset)
    versions = or_404(found, not_found("dataset", namespace=namespace, dataset=dataset))
    return shapes.page("versions", versions, shapes.dataset_version)


@router.get("/namespaces/{namespace}/datasets/{dataset}/versions/{version}")
def get_dataset_version(
    request: Request, reader: MarquezDep, namespace: str, dataset: str, version: str
) -> dict[str, Any]:
    """One version of a dataset, with the run that created it."""
    found = reader.dataset_version(namespace, dataset, version, scope_for(request))
    missing = not_found("dataset version", namespace=namespace, dataset=dataset, version=version)
    return shapes.dataset_version(or_404(found, missing))
