"""How every provgraph HTTP service is served: uvicorn, with JSON errors down to the protocol.

uvicorn answers a request it cannot parse (``Content-Length: abc``, a garbage request line, a
broken header) itself, before any app sees it, and in plain text. `JsonErrorH11Protocol`
answers those with the JSON error body of every other error (`provgraph.core.errors`). Both
services start through `serve`, or from the uvicorn command line with
``--http`` `HTTP_PROTOCOL_OPTION` (as `provgraph services up` does).
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from provgraph.core.errors import BadRequestError

# The parser's reason may quote what the client sent: enough to recognise it, no more.
_MAX_REASON_CHARS = 200


def unreadable_request(error: BaseException | None, fallback: str) -> tuple[int, bytes]:
    """The status and JSON body answering a request the HTTP parser refused with `error`."""
    status, reason = 400, fallback
    if isinstance(error, h11.RemoteProtocolError):
        status, reason = error.error_status_hint, str(error)
    failure = BadRequestError(f"the HTTP request cannot be read: {reason[:_MAX_REASON_CHARS]}")
    # Compact, like the JSON answers of the apps themselves.
    return status, json.dumps(failure.body(), separators=(",", ":")).encode()


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering an unparsable request with provgraph's JSON error.

    h11 is uvicorn's pure-Python parser, the one its "auto" choice takes when httptools is
    not installed (provgraph does not depend on it), so nothing else changes.
    """

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this inside its `except` for the parser's error: that error is the reason.
        status, body = unreadable_request(sys.exception(), msg)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        reason = HTTPStatus(status).phrase.encode("ascii")
        events = (
            h11.Response(status_code=status, headers=headers, reason=reason),
            h11.Data(data=body),
            h11.EndOfMessage(),
        )
        for event in events:
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()


# The `--http` value of the uvicorn command line (uvicorn imports it by this name).
HTTP_PROTOCOL_OPTION = f"{JsonErrorH11Protocol.__module__}:{JsonErrorH11Protocol.__qualname__}"


def serve(app: Any, host: str, port: int, **options: Any) -> None:
    """Serve the ASGI `app` on host:port until interrupted (uvicorn, JSON protocol errors)."""
    uvicorn.run(app, host=host, port=port, http=JsonErrorH11Protocol, **options)
