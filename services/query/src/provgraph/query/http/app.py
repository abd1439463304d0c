"""The query service's HTTP app: GraphQL at /graphql, read-only Cypher, Marquez REST, probes,
and the web explorer's built files at /ui.

Every error answers `{"error": {code, message, details}}` (`provgraph.core.http`); a Neo4j
driver error that escapes a route is `unavailable` (503).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import neo4j
from fastapi import Depends, FastAPI, Request, Response
from neo4j.exceptions import DriverError, Neo4jError
from starlette.concurrency import run_in_threadpool

from provgraph.authz.web import authenticate
from provgraph.authz.wiring import build_authenticator
from provgraph.core.collector import collect_less
from provgraph.core.errors import UnavailableError
from provgraph.core.http import error_response, install_error_handlers
from provgraph.core.metrics import AnswerObserver
from provgraph.query.graphql.context import GraphContext
from provgraph.query.graphql.ide import serves_the_ide
from provgraph.query.graphql.schema import make_router
from provgraph.query.http import (
    cypher,
    dossier_routes,
    marquez_columns,
    probes,
    prov_routes,
    rest,
    ui,
)
from provgraph.query.http.deps import QueryContext, get_context, get_services, scope_for
from provgraph.query.http.guard import CypherGuard
from provgraph.query.http.marquez import datasets, jobs, namespaces, search
from provgraph.query.http.metrics import QueryMetrics
from provgraph.query.http.readiness import Readiness, neo4j_probe
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings
from provgraph.schemas.version import __version__

logger = logging.getLogger(__name__)

READY_TIMEOUT_S = 2.0


async def _on_neo4j_error(_request: Request, exc: Exception) -> Response:
    # The driver's text names servers, queries and internals: the log has it, the caller not.
    code = getattr(exc, "code", None) or type(exc).__name__
    logger.warning("Neo4j error %s: %s", code, exc)
    return error_response(UnavailableError("the graph database could not answer", neo4j_code=code))


def _start(context: QueryContext, driver: neo4j.Driver) -> None:
    """Build what the routes use over `driver`: the readers once, for every route and
    resolver; the Cypher endpoint's guard and the readiness probe, which read no model, keep
    sessions of their own."""
    s = context.settings
    context.driver = driver
    context.guard = CypherGuard(
        driver, s.neo4j_database, timeout_s=s.cypher_timeout_s, row_cap=s.cypher_row_cap
    )
    context.readers = neo4j_readers(driver, s.neo4j_database, s)
    context.services = RecipeServices(s, context.readers)
    probe = neo4j_probe(driver, s.neo4j_database, READY_TIMEOUT_S)
    context.readiness = Readiness(probe, ttl_s=2.0, timeout_s=READY_TIMEOUT_S)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    context = app.state.query
    assert isinstance(context, QueryContext)
    # Notifications off: the service's own queries are reviewed; they only add noise to logs.
    driver = context.driver
    if driver is None:
        driver = context.settings.neo4j_driver(notifications_min_severity="OFF")
    _start(context, driver)
    authenticator, close_auth = build_authenticator(context.settings, "query", driver=driver)
    app.state.authenticator = authenticator
    try:
        yield
    finally:
        close_auth()
        if context.readiness is not None:
            context.readiness.close()
        if context.owns_driver:
            await run_in_threadpool(driver.close)


async def _authenticate_graphql(request: Request) -> None:
    """Every GraphQL request needs a token; the GraphiQL page itself does not."""
    if not serves_the_ide(request):
        await authenticate(request)


async def _graphql_context(request: Request) -> GraphContext:
    """Each GraphQL request reads through what the lifespan started (fresh DataLoaders)."""
    context = get_context(request)
    services = get_services(context)
    # The GraphiQL page has no caller: its context (never used to read) may read nothing.
    scope = Scope(frozenset()) if serves_the_ide(request) else scope_for(request)
    return GraphContext(services, scope)


def create_app(
    settings: QuerySettings | None = None, *, driver: neo4j.Driver | None = None
) -> FastAPI:
    """The query app. Given a `driver`, it uses that one (the caller owns and closes it)."""
    settings = settings if settings is not None else QuerySettings()
    collect_less(settings.query_gc_threshold)
    app = FastAPI(title="provgraph query", version=__version__, lifespan=_lifespan)
    context = QueryContext(settings, QueryMetrics(), driver=driver, owns_driver=driver is None)
    app.state.query = context
    app.add_middleware(AnswerObserver, on_answer=context.metrics.observe)
    install_error_handlers(app)
    app.add_exception_handler(Neo4jError, _on_neo4j_error)
    app.add_exception_handler(DriverError, _on_neo4j_error)
    app.include_router(probes.router)
    app.include_router(cypher.router)
    app.include_router(rest.router)
    app.include_router(dossier_routes.router)
    app.include_router(prov_routes.router)
    for area in (namespaces, datasets, jobs, search):  # Marquez's read API
        app.include_router(area.router)
    app.include_router(marquez_columns.router)
    app.include_router(ui.router)  # public: static files, every answer comes from /graphql
    graphql = make_router(settings, _graphql_context)
    app.include_router(graphql, prefix="/graphql", dependencies=[Depends(_authenticate_graphql)])
    return app
