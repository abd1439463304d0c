"""The query service: GraphQL at /graphql, read-only Cypher, Marquez-compatible REST, probes.

Run it with ``python -m provgraph.query.app`` (on PROVGRAPH_QUERY_HOST:PORT) or
``uvicorn provgraph.query.app:create_app --factory``; settings come from PROVGRAPH_* vars.
The read model, the recipes and the GraphQL layer are imported when present, so the app
serves what exists at every stage. Every error answers `{"error": {code, message, details}}`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, cast

import neo4j
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import DriverError, Neo4jError
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from provgraph.authz import AuthError, ForbiddenError, Principal
from provgraph.authz.web import authenticate, on_auth_error
from provgraph.authz.wiring import build_authenticator
from provgraph.query import rest
from provgraph.query.cypher_guard import CypherGuard
from provgraph.query.deps import (
    Context,
    GuardDep,
    QueryContext,
    Readiness,
    ReadinessDep,
    neo4j_probe,
)
from provgraph.query.errors import ForbiddenQueryError, QueryError, UnavailableError
from provgraph.query.graphql import make_router
from provgraph.query.metrics import MetricsMiddleware, QueryMetrics
from provgraph.query.ports import ReadModel
from provgraph.query.reader import GraphReader
from provgraph.query.recipes import Recipes
from provgraph.query.settings import QuerySettings
from provgraph.schemas.version import __version__

logger = logging.getLogger(__name__)

READY_TIMEOUT_S = 2.0

probes_router = APIRouter(tags=["probes"])
# Arbitrary Cypher cannot be filtered per project: global auditors (and admins) only.
cypher_router = APIRouter(prefix="/v1", tags=["cypher"], dependencies=[Depends(authenticate)])
Caller = Annotated[Principal, Depends(authenticate)]


class CypherRequest(BaseModel):
    """A read-only Cypher query; values travel in `parameters`, never inside the text."""

    query: str
    parameters: dict[str, Any] = Field(default_factory=dict)


@cypher_router.post("/cypher")
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


@probes_router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is alive and serving HTTP."""
    return {"status": "ok"}


@probes_router.get("/readyz")
def readyz(readiness: ReadinessDep) -> dict[str, str]:
    """Neo4j answered `RETURN 1` within 2 s (answer cached for about 2 s)."""
    readiness.check()
    return {"status": "ready", "neo4j": "reachable"}


@probes_router.get("/metrics")
def metrics(context: Context) -> Response:
    """Prometheus text exposition of this app's metrics."""
    payload, content_type = context.metrics.render()
    return Response(content=payload, media_type=content_type)


def _error(status: int, code: str, message: str, details: dict[str, Any]) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details}}
    return JSONResponse(json.loads(json.dumps(body, default=str)), status_code=status)


async def _on_query_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, QueryError)
    return _error(exc.status, exc.code, exc.message, exc.details)


async def _on_neo4j_error(_request: Request, exc: Exception) -> Response:
    logger.warning("Neo4j error: %s", exc)
    error = UnavailableError(f"Neo4j could not answer: {exc}")
    return _error(error.status, error.code, error.message, {})


async def _on_http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
    return _error(exc.status_code, code, str(exc.detail), {})


async def _on_request_validation(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return _error(400, "INVALID_ARGUMENT", "invalid request", {"errors": exc.errors()})


async def _on_unexpected(_request: Request, exc: Exception) -> Response:
    # The traceback goes to the log, never to the client.
    logger.error("unexpected error", exc_info=exc)
    return _error(500, "INTERNAL", "internal error", {})


def _connect(settings: QuerySettings) -> neo4j.Driver:
    # Notifications off: the service's own queries are reviewed; they only add noise to logs.
    return neo4j.GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password),
        notifications_min_severity="OFF",
    )


def _start(context: QueryContext, driver: neo4j.Driver) -> None:
    """Build what the routes use over `driver`."""
    s = context.settings
    context.driver = driver
    context.guard = CypherGuard(
        driver, s.neo4j_database, timeout_s=s.cypher_timeout_s, row_cap=s.cypher_row_cap
    )
    context.reader = GraphReader(driver, s.neo4j_database, s)
    context.recipes = Recipes(driver, s.neo4j_database)
    probe = neo4j_probe(driver, s.neo4j_database, READY_TIMEOUT_S)
    context.readiness = Readiness(probe, ttl_s=2.0, timeout_s=READY_TIMEOUT_S)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    context = app.state.query
    assert isinstance(context, QueryContext)
    driver = context.driver if context.driver is not None else _connect(context.settings)
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


class _LateBound:
    """Forwards attribute access to an object the lifespan builds after the routes exist.

    The GraphQL router is built with its reader and recipes when the app is created, but the
    driver (and so the reader) only exists once the lifespan has started.
    """

    def __init__(self, resolve: Callable[[], Any]) -> None:
        self._resolve = resolve

    def __getattr__(self, name: str) -> Any:
        target = self._resolve()
        if target is None:
            raise UnavailableError("the query service is starting")
        return getattr(target, name)


def _mount_graphql(app: FastAPI, context: QueryContext) -> None:
    reader = cast(ReadModel, _LateBound(lambda: context.reader))
    recipes = _LateBound(lambda: context.recipes)
    router = make_router(context.settings, reader, recipes)
    has_path = any(str(getattr(r, "path", "")).startswith("/graphql") for r in router.routes)
    auth = [Depends(_authenticate_graphql)]
    app.include_router(router, prefix="" if has_path else "/graphql", dependencies=auth)


async def _authenticate_graphql(request: Request) -> None:
    """Every GraphQL request needs a token; the GraphiQL page itself (no query) does not."""
    if request.method == "GET" and "query" not in request.query_params:
        return
    await authenticate(request)


def create_app(
    settings: QuerySettings | None = None, *, driver: neo4j.Driver | None = None
) -> FastAPI:
    """The query app. Given a `driver`, it uses that one (the caller owns and closes it)."""
    settings = settings if settings is not None else QuerySettings()
    app = FastAPI(title="provgraph query", version=__version__, lifespan=_lifespan)
    context = QueryContext(settings, QueryMetrics(), driver=driver, owns_driver=driver is None)
    app.state.query = context
    app.add_middleware(MetricsMiddleware, metrics=context.metrics)
    app.add_exception_handler(QueryError, _on_query_error)
    app.add_exception_handler(AuthError, on_auth_error)
    app.add_exception_handler(Neo4jError, _on_neo4j_error)
    app.add_exception_handler(DriverError, _on_neo4j_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_request_validation)
    app.add_exception_handler(Exception, _on_unexpected)
    app.include_router(probes_router)
    app.include_router(cypher_router)
    app.include_router(rest.router)
    _mount_graphql(app, context)
    return app


def serve(settings: QuerySettings | None = None) -> None:
    """Serve the query app on `query_host:query_port` until interrupted."""
    import uvicorn

    settings = settings if settings is not None else QuerySettings()
    uvicorn.run(create_app(settings), host=settings.query_host, port=settings.query_port)


if __name__ == "__main__":
    serve()
