"""The JSON answer to a request the HTTP parser refused, and the route label of an answer."""

from __future__ import annotations

import json

import h11
import pytest
from uvicorn.importer import import_from_string

from provgraph.core.metrics import UNMATCHED, route_template
from provgraph.core.server import HTTP_PROTOCOL_OPTION, JsonErrorH11Protocol, unreadable_request


def parser_error(data: bytes) -> h11.RemoteProtocolError:
    connection = h11.Connection(h11.SERVER)
    connection.receive_data(data)
    with pytest.raises(h11.RemoteProtocolError) as refused:
        connection.next_event()
    return refused.value


def test_the_parser_reason_is_in_the_json_error() -> None:
    error = parser_error(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
    status, body = unreadable_request(error, "Invalid HTTP request received.")
    assert status == 400
    assert json.loads(body) == {
        "error": {
            "code": "bad_request",
            "message": "the HTTP request cannot be read: bad Content-Length",
            "details": {},
        }
    }


def test_the_status_hint_of_the_parser_is_kept() -> None:
    error = h11.RemoteProtocolError("request line too long", error_status_hint=414)
    assert unreadable_request(error, "x")[0] == 414


def test_without_a_parser_error_the_message_of_uvicorn_is_the_reason() -> None:
    status, body = unreadable_request(None, "Invalid HTTP request received.")
    assert status == 400
    message = json.loads(body)["error"]["message"]
    assert message == "the HTTP request cannot be read: Invalid HTTP request received."


def test_what_the_client_sent_is_quoted_briefly() -> None:
    error = parser_error(b"X" * 5000 + b"\r\n\r\n")
    message = json.loads(unreadable_request(error, "")[1])["error"]["message"]
    assert len(message) < 300


def test_uvicorn_finds_the_protocol_by_the_command_line_option() -> None:
    assert import_from_string(HTTP_PROTOCOL_OPTION) is JsonErrorH11Protocol


def test_route_template_of_an_unmatched_request() -> None:
    assert route_template({"type": "http", "path": "/nowhere"}) == UNMATCHED
