"""FastAPI glue shared by the ingest and query services: the authentication dependency.

Its errors are `ProvgraphError`s, answered by `provgraph.core.http.install_error_handlers`.
"""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from provgraph.authz.errors import UnauthenticatedError
from provgraph.authz.guard import Authenticator
from provgraph.authz.model import Principal


def authenticator_of(request: Request) -> Authenticator:
    """The app's authenticator (set by its lifespan)."""
    found = getattr(request.app.state, "authenticator", None)
    if not isinstance(found, Authenticator):
        raise UnauthenticatedError()
    return found


async def authenticate(request: Request) -> Principal:
    """Dependency: the caller, or 401. Stored on `request.state.principal` for later reads."""
    authenticator = authenticator_of(request)
    header = request.headers.get("authorization")
    # The peer's address: behind a proxy every caller shares the proxy's failure budget.
    client = request.client.host if request.client is not None else None
    principal = await run_in_threadpool(authenticator.authenticate, header, client)
    request.state.principal = principal
    return principal


def principal_of(request: Request) -> Principal:
    """The caller `authenticate` stored on this request (401 when it did not run)."""
    principal = getattr(request.state, "principal", None)
    if not isinstance(principal, Principal):
        raise UnauthenticatedError()
    return principal
