"""The bootstrap admin token through the event-log port, and how auth errors are answered."""

from __future__ import annotations

import stat
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from provgraph.authz import ForbiddenError, UnauthenticatedError, hash_token
from provgraph.authz.admin import bootstrap_admin_token
from provgraph.client.eventlog import MemoryEventLog
from provgraph.core.http import install_error_handlers
from provgraph.schemas.events.tokens import GlobalRole, TokenIssued


def test_the_bootstrap_admin_token_is_issued_once(tmp_path: Path) -> None:
    log, path = MemoryEventLog(), tmp_path / "admin-token"
    token = bootstrap_admin_token(path, log)
    assert token is not None and path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    [issued] = log.events
    assert isinstance(issued, TokenIssued)
    assert issued.payload.token_hash == hash_token(token)
    assert list(issued.payload.global_roles) == [GlobalRole.ADMIN]
    assert bootstrap_admin_token(path, log) is None
    assert len(log.events) == 1


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/anonymous")
    def anonymous() -> None:
        raise UnauthenticatedError()

    @app.get("/forbidden")
    def forbidden() -> None:
        raise ForbiddenError("needs writer", right="writer", project="p")

    return app


def test_auth_errors_have_the_one_shape_and_401_a_challenge() -> None:
    with TestClient(_app()) as http:
        anonymous = http.get("/anonymous")
        forbidden = http.get("/forbidden")
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"] == "Bearer"
    assert anonymous.json()["error"]["code"] == "unauthenticated"
    assert forbidden.status_code == 403 and "WWW-Authenticate" not in forbidden.headers
    assert forbidden.json() == {
        "error": {
            "code": "forbidden",
            "message": "needs writer",
            "details": {"right": "writer", "project": "p"},
        }
    }
