"""HttpTransport against a stdlib HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from client_fakes import PROJECT, metric_event

from provgraph.client import (
    ConfigError,
    Emitter,
    HttpTransport,
    NotAuthorizedError,
    RejectedError,
    TransportError,
)
from provgraph.client.spool import REJECTED_FILE
from provgraph.schemas import parse_event


class Ingest:
    """A fake ingest service: records accepted batches, answers `status` (202 by default)."""

    def __init__(self) -> None:
        self.status = 202
        self.max_events: int | None = None
        self.batches: list[list[dict[str, Any]]] = []
        self.paths: list[str] = []


def _handler(ingest: Ingest) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            ingest.paths.append(self.path)
            status = ingest.status
            if ingest.max_events is not None and len(body) > ingest.max_events:
                status = 413
            if status == 202:
                ingest.batches.append(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"status": status}).encode())

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture()
def ingest() -> Iterator[tuple[Ingest, str]]:
    state = Ingest()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_posts_a_json_array_of_contract_events(ingest: tuple[Ingest, str]) -> None:
    state, url = ingest
    events = [metric_event(0, 1), metric_event(1, 2)]
    HttpTransport(url).send(events)
    assert state.paths == ["/v1/events"]
    assert [parse_event(e) for e in state.batches[0]] == events


@pytest.mark.parametrize("status", [400, 401, 403, 422])
def test_a_4xx_is_a_permanent_rejection(ingest: tuple[Ingest, str], status: int) -> None:
    state, url = ingest
    state.status = status
    with pytest.raises(RejectedError) as caught:
        HttpTransport(url).send([metric_event(0, 1)])
    assert len(caught.value.events) == 1
    assert str(status) in str(caught.value)


@pytest.mark.parametrize("status", [401, 403])
def test_401_and_403_say_not_authorised_and_keep_the_status(
    ingest: tuple[Ingest, str], status: int
) -> None:
    state, url = ingest
    state.status = status
    with pytest.raises(NotAuthorizedError) as caught:
        HttpTransport(url).send([metric_event(0, 1)])
    assert caught.value.status == status


def test_a_413_split_that_meets_a_403_still_says_not_authorised(
    ingest: tuple[Ingest, str],
) -> None:
    state, url = ingest
    state.max_events, state.status = 1, 403
    with pytest.raises(NotAuthorizedError) as caught:
        HttpTransport(url).send([metric_event(0, 1), metric_event(0, 2)])
    assert (caught.value.status, len(caught.value.events)) == (403, 2)


@pytest.mark.parametrize("status", [408, 429, 500, 503])
def test_5xx_408_and_429_are_transient(ingest: tuple[Ingest, str], status: int) -> None:
    state, url = ingest
    state.status = status
    with pytest.raises(TransportError) as caught:
        HttpTransport(url).send([metric_event(0, 1)])
    assert not isinstance(caught.value, RejectedError)


def test_a_413_is_retried_in_halves(ingest: tuple[Ingest, str]) -> None:
    state, url = ingest
    state.max_events = 2
    events = [metric_event(0, step) for step in range(7)]
    HttpTransport(url).send(events)
    assert [parse_event(e) for batch in state.batches for e in batch] == events


def test_nobody_listening_is_transient() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError):
        HttpTransport(f"http://127.0.0.1:{port}", timeout_s=2).send([metric_event(0, 1)])


def test_a_url_without_http_scheme_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        HttpTransport("127.0.0.1:8080")


def test_emitter_over_http_spools_while_ingest_answers_503(
    ingest: tuple[Ingest, str], tmp_path: Path
) -> None:
    state, url = ingest
    state.status = 503
    emitter = Emitter(HttpTransport(url), spool_dir=tmp_path, project=PROJECT, linger_s=0.02)
    events = [metric_event(step % 2, step) for step in range(30)]
    for event in events:
        emitter.emit(event)
    assert not emitter.flush(timeout=0.5)
    state.status = 202
    assert emitter.flush(timeout=10)
    emitter.close()
    received = [parse_event(e) for batch in state.batches for e in batch]
    assert received == events


def test_emitter_over_http_retries_401_until_the_token_is_valid(
    ingest: tuple[Ingest, str], tmp_path: Path
) -> None:
    state, url = ingest
    state.status = 401
    emitter = Emitter(
        HttpTransport(url),
        spool_dir=tmp_path,
        project=PROJECT,
        linger_s=0.02,
        retry_initial_s=0.05,
        retry_max_s=0.2,
        auth_retry_s=30,
    )
    events = [metric_event(step % 2, step) for step in range(30)]
    for event in events:
        emitter.emit(event)
    assert not emitter.flush(timeout=0.8)
    assert len(state.paths) >= 2  # refused, and asked again
    state.status = 202
    assert emitter.flush(timeout=10)
    emitter.close()
    assert [parse_event(e) for batch in state.batches for e in batch] == events
    assert not (tmp_path / REJECTED_FILE).exists()
