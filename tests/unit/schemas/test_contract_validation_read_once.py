"""An event is read once where its bytes plainly name its model; everywhere else the answer is
the one the full reading (`json.loads` for type and version, then the model) gives: the same
errors, word for word, for bytes the model alone would accept or read differently."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provgraph.schemas import ErrorCode, EventValidationError, MalformedEventError, parse_event
from provgraph.schemas.errors import FieldError

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"
RAW = parse_event(json.loads((EXAMPLES / "run.started.json").read_text())).to_json_bytes()
WRONG = ErrorCode.WRONG_TYPE


def errors(raw: bytes) -> tuple[type[Exception], tuple[FieldError, ...]]:
    with pytest.raises(EventValidationError) as caught:
        parse_event(raw)
    return type(caught.value), caught.value.errors


def with_version(literal: bytes) -> bytes:
    return RAW.replace(b'"schema_version":2', b'"schema_version":' + literal)


def test_plain_bytes_are_read_without_json_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("json.loads called")

    monkeypatch.setattr(json, "loads", refuse)
    assert parse_event(RAW).to_json_bytes() == RAW


@pytest.mark.parametrize(
    ("raw", "got"),
    [
        (with_version(b"2.0"), "number"),  # the literal 2 of the model takes 2.0 ...
        (with_version(b"true"), "boolean"),  # ... and true
        (with_version(b'2,"schema_version":true'), "boolean"),  # the last counts
        (with_version(b'2,"schema_versio\\u006e":2.0'), "number"),  # the same key, escaped
    ],
)
def test_a_version_that_is_not_an_integer_is_refused_as_such(raw: bytes, got: str) -> None:
    reason = f"wrong type: expected an integer, got {got}"
    assert errors(raw) == (EventValidationError, (FieldError("schema_version", reason, WRONG),))


def test_a_missing_version_is_refused_though_the_model_has_a_default_and_a_map_holds_one() -> None:
    data = json.loads(RAW)
    del data["schema_version"]
    data["payload"]["params"] = {"schema_version": 1}
    raw = json.dumps(data, separators=(",", ":")).encode()
    missing = FieldError("schema_version", "required field is missing", ErrorCode.MISSING_FIELD)
    assert errors(raw) == (EventValidationError, (missing,))


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (RAW.replace(b'"actor":"', b'"actor":"\n', 1), "Invalid control character at: line 1"),
        (RAW.replace(b'"actor":"', b'"actor":"\xc0\xaf', 1), "'utf-8' codec can't decode byte"),
        (RAW[:-1] + b",}", "Expecting property name enclosed in double quotes: line 1"),
        (RAW + b"{}", "Extra data: line 1"),
        (
            RAW.replace(b'"params":{', b'"params":{"big":' + b"9" * 4301 + b",", 1),
            "Exceeds the limit (4300 digits) for integer string conversion",
        ),
    ],
)
def test_what_json_loads_refuses_is_malformed_in_its_words(raw: bytes, reason: str) -> None:
    kind, (error,) = errors(raw)
    assert (kind, error.path, error.code) == (MalformedEventError, "", ErrorCode.MALFORMED)
    assert error.reason.startswith(f"not valid UTF-8 JSON: {reason}")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"\xef\xbb\xbf" + RAW, "Invalid JSON: expected value at line 1 column 1"),
        (
            RAW.replace(b'"actor":"', b'"actor":"\xed\xa0\x80', 1),
            "Invalid JSON: invalid unicode code point at line 1 column 11",
        ),
    ],
)
def test_what_only_the_model_refuses_is_worded_by_the_model(raw: bytes, reason: str) -> None:
    json.loads(raw)  # a BOM, an encoded surrogate: fine to json.loads
    error = FieldError("", reason, ErrorCode.INVALID_VALUE)
    assert errors(raw) == (EventValidationError, (error,))


@pytest.fixture
def fewer_int_digits() -> Iterator[int]:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    try:
        yield 1000
    finally:
        sys.set_int_max_str_digits(before)


def test_a_lower_limit_on_integer_digits_is_json_loads_to_apply(fewer_int_digits: int) -> None:
    raw = RAW.replace(b'"params":{', b'"params":{"big":' + b"9" * 2000 + b",", 1)
    with pytest.raises(ValueError) as refused:
        json.loads(raw)
    kind, (error,) = errors(raw)
    assert (kind, error.reason) == (MalformedEventError, f"not valid UTF-8 JSON: {refused.value}")
