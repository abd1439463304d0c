"""An ASGI app served over real HTTP from a thread of the test process (uvicorn, free port)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import uvicorn

from provgraph.core.server import JsonErrorH11Protocol


def free_port() -> int:
    """A loopback TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(app: Any, start_timeout_s: float = 30.0) -> Iterator[str]:
    """`app` listening on a free loopback port, its base URL, until the block ends."""
    port = free_port()
    # The HTTP protocol the services run with: requests uvicorn cannot parse get JSON errors.
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", http=JsonErrorH11Protocol
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout_s
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the app did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def raw_exchange(base: str, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send `request` as is over a TCP socket; the answer's status line, headers and body."""
    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return status, headers, body
