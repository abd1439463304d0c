"""The one error renderer of the HTTP services (`provgraph.core.http`)."""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.requests import ClientDisconnect

from provgraph.core.http import install_error_handlers


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/hung-up")
    async def hung_up() -> None:
        raise ClientDisconnect()

    @app.get("/broken")
    async def broken() -> None:
        raise RuntimeError("secret detail")

    return app


def test_a_client_that_hung_up_is_no_server_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        answer = TestClient(_app()).post("/hung-up")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "client_disconnected"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_an_unexpected_error_answers_a_reference_and_no_detail() -> None:
    answer = TestClient(_app(), raise_server_exceptions=False).get("/broken")
    assert answer.status_code == 500
    error = answer.json()["error"]
    assert error["code"] == "internal_error" and "secret" not in answer.text
    assert len(error["details"]["reference"]) == 12
