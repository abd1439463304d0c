"""One error renderer for every provgraph HTTP service (FastAPI): the shape of `errors.py`.

A request the HTTP parser itself refuses never reaches an app: `provgraph.core.server`
answers it with the same body."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from provgraph.core.errors import ProvgraphError, error_body

log = logging.getLogger(__name__)

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def error_response(error: ProvgraphError) -> JSONResponse:
    """The HTTP answer of an expected failure."""
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers())


async def _on_provgraph_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProvgraphError)
    return error_response(exc)


async def _on_http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
    body = error_body(code, str(exc.detail))
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _on_request_validation(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    body = error_body("invalid_request", _first_problem(errors), {"errors": errors})
    return JSONResponse(body, status_code=422)


def _first_problem(errors: list[Any]) -> str:
    """`invalid request: query.nodeId: Field required` (and how many more), from FastAPI's list."""
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"invalid request: {where}: {first.get('msg', 'invalid')}{more}"


async def _on_client_disconnect(request: Request, _exc: Exception) -> Response:
    # The caller hung up (its own timeout) before its body was read: nothing was done, and
    # nobody reads this answer. Not a server error.
    log.info("client disconnected before its request to %s was read", request.url.path)
    body = error_body("client_disconnected", "the client disconnected before its request was read")
    return JSONResponse(body, status_code=400)


async def _on_unexpected(_request: Request, exc: Exception) -> Response:
    # Nothing of the exception reaches the caller (not even its type): the reference finds the
    # logged traceback.
    reference = secrets.token_hex(6)
    log.error("unexpected error (reference %s)", reference, exc_info=exc)
    body = error_body("internal_error", "internal error", {"reference": reference})
    return JSONResponse(body, status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every failure of `app` as ``{"error": {code, message, details}}``."""
    app.add_exception_handler(ProvgraphError, _on_provgraph_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_request_validation)
    app.add_exception_handler(ClientDisconnect, _on_client_disconnect)
    app.add_exception_handler(Exception, _on_unexpected)
