"""The ingest app's error answers: every one is ``{"error": {code, message, details}}``."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from provgraph.authz import AuthError
from provgraph.authz.web import on_auth_error
from provgraph.ingest.errors import IngestError


async def _on_ingest_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, IngestError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers())


async def _on_http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    code = "not_found" if exc.status_code == 404 else f"http_{exc.status_code}"
    body = {"error": {"code": code, "message": str(exc.detail), "details": {}}}
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _on_request_validation(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    details = {"errors": json.loads(json.dumps(exc.errors(), default=str))}
    body = {"error": {"code": "invalid_request", "message": "invalid request", "details": details}}
    return JSONResponse(body, status_code=422)


def install_error_handlers(app: FastAPI) -> None:
    """Register every error handler of the ingest app."""
    app.add_exception_handler(IngestError, _on_ingest_error)
    app.add_exception_handler(AuthError, on_auth_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(RequestValidationError, _on_request_validation)
