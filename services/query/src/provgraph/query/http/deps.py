"""What the query app's routes share, and the FastAPI dependencies (Annotated aliases) to get it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypeVar

import neo4j
from fastapi import Depends, Query, Request

from provgraph.authz.web import principal_of
from provgraph.core.errors import UnavailableError
from provgraph.query.http.guard import CypherGuard
from provgraph.query.http.marquez.ids import is_marquez_id
from provgraph.query.http.metrics import QueryMetrics
from provgraph.query.http.readiness import Readiness
from provgraph.query.ids import checked_id
from provgraph.query.read.model import Scope
from provgraph.query.read.ports import MarquezReads, ReadModel
from provgraph.query.read.readers import Readers
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings

T = TypeVar("T")


@dataclass
class QueryContext:
    """Settings and metrics from the start; driver, readers, services and guard once started
    (`app._start`: the readers and the question services over them are built there once, every
    route and resolver reads through them)."""

    settings: QuerySettings
    metrics: QueryMetrics
    driver: neo4j.Driver | None = None
    owns_driver: bool = True
    readers: Readers | None = None
    services: RecipeServices | None = None
    guard: CypherGuard | None = None
    readiness: Readiness | None = None


def get_context(request: Request) -> QueryContext:
    context = request.app.state.query
    assert isinstance(context, QueryContext)
    return context


Context = Annotated[QueryContext, Depends(get_context)]


def get_settings(context: Context) -> QuerySettings:
    return context.settings


def _started(part: T | None) -> T:
    """What the lifespan builds once the app starts; `unavailable` before that."""
    if part is None:
        raise UnavailableError("the query service is starting")
    return part


def get_readers(context: Context) -> Readers:
    return _started(context.readers)


def get_reader(context: Context) -> ReadModel:
    return get_readers(context).graph


def get_marquez(context: Context) -> MarquezReads:
    return get_readers(context).marquez


def get_services(context: Context) -> RecipeServices:
    return _started(context.services)


def get_guard(context: Context) -> CypherGuard:
    return _started(context.guard)


def get_readiness(context: Context) -> Readiness:
    return _started(context.readiness)


def scope_for(request: Request) -> Scope:
    """The projects the caller may read: the one place the query service decides it.

    The caller is the principal `authenticate` stored on the request (401 without one);
    in-process callers (the CLI, tests) pass their scope themselves.
    """
    readable = principal_of(request).readable_projects()
    return Scope.everything() if readable is None else Scope(readable)


def node_id_param(node_id: Annotated[str, Query(alias="nodeId", min_length=1)]) -> str:
    """The `nodeId` query parameter: a well-formed provgraph id, or a Marquez id
    (`dataset:<namespace>:<name>`, `job:<namespace>:<name>`); `invalid_id` otherwise."""
    return node_id if is_marquez_id(node_id) else checked_id("nodeId", node_id)


SettingsDep = Annotated[QuerySettings, Depends(get_settings)]
NodeIdParam = Annotated[str, Depends(node_id_param)]
ReaderDep = Annotated[ReadModel, Depends(get_reader)]
MarquezDep = Annotated[MarquezReads, Depends(get_marquez)]
GuardDep = Annotated[CypherGuard, Depends(get_guard)]
ReadinessDep = Annotated[Readiness, Depends(get_readiness)]
