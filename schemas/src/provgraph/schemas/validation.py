"""Reading events: size limits, type/version resolution, upcasting, precise errors.

`parse_event` is the one way in for bytes from Kafka, HTTP bodies and dicts. Wire input is
validated strictly (no "5" for 5), exactly as the generated JSON Schema would.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from provgraph.schemas.envelope import Event
from provgraph.schemas.errors import (
    BatchError,
    BatchTooLargeError,
    ErrorCode,
    EventTooLargeError,
    EventValidationError,
    FieldError,
    MalformedEventError,
    SubjectMismatchError,
)
from provgraph.schemas.limits import MAX_JSON_DEPTH, non_finite_path
from provgraph.schemas.registry import REGISTRY, Registry

MAX_EVENT_BYTES = 256 * 1024
"""Largest serialized event accepted (256 KiB): store big artefacts by URI, not inline."""

MAX_BATCH_EVENTS = 1000
"""Most events accepted in one batch."""

_WRONG_TYPE_SUFFIXES = ("_type", "_parsing")


def parse_event(obj: dict[str, Any] | bytes | str, *, registry: Registry = REGISTRY) -> Event:
    """Validate one event and upcast it to the current version of its type."""
    raw = _encode(obj)
    if len(raw) > MAX_EVENT_BYTES:
        raise EventTooLargeError([_too_large(len(raw))])
    event = _valid_as_named(raw, registry)
    if event is None:
        model = registry.resolve(*_type_and_version(_decode_named(raw)))
        event = _validate(model, raw)
    if event.schema_version == registry.current_version(event.event_type):
        return event
    upcast = registry.upcast(event.model_dump(mode="json"))
    current = registry.resolve(event.event_type, int(upcast["schema_version"]))
    return _validate(current, json.dumps(upcast).encode())


def validate_batch(
    items: Sequence[dict[str, Any] | bytes | str], *, registry: Registry = REGISTRY
) -> tuple[list[Event], list[BatchError]]:
    """Validate every item; return the good events and every error with its event index."""
    if len(items) > MAX_BATCH_EVENTS:
        raise BatchTooLargeError(
            f"batch holds {len(items)} events, more than MAX_BATCH_EVENTS={MAX_BATCH_EVENTS}"
        )
    events: list[Event] = []
    errors: list[BatchError] = []
    for index, item in enumerate(items):
        try:
            events.append(parse_event(item, registry=registry))
        except EventValidationError as exc:
            errors.extend(BatchError(index, e.path, e.reason, e.code) for e in exc.errors)
    return events, errors


def _encode(obj: object) -> bytes:
    if isinstance(obj, bytes):
        return obj
    if isinstance(obj, str):
        return obj.encode("utf-8")
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except RecursionError:
        raise MalformedEventError([_too_deep()]) from None
    except (TypeError, ValueError) as exc:
        where = non_finite_path(obj)
        if where is not None:  # JSON text such as 1e999, parsed by the caller as infinity
            reason = "number is not finite (beyond the range of a 64-bit float, e.g. 1e999)"
            raise EventValidationError(
                [FieldError(where, reason, ErrorCode.INVALID_VALUE)]
            ) from None
        raise MalformedEventError([_malformed(f"not JSON-serialisable: {exc}")]) from None


# ---- reading the bytes once where that tells the same -------------------------------------
# `json.loads` finds the type and version, then the model reads the bytes again. Most events
# need neither that second parse nor the Python objects of the first: the model alone tells,
# in the two cases below; any other event takes the full path, which words every error.

_TYPE_KEY, _VERSION_KEY = b'"event_type"', b'"schema_version"'
_NAMED_TYPE = re.compile(rb'"event_type":"([a-z0-9_.]{1,200})"')
_NAMED_VERSION = re.compile(rb'"schema_version":([1-9][0-9]{0,8})(?![0-9.eE])')

_INT_DIGITS = 4300
"""The most digits pydantic's JSON parser reads in an integer (Python's default limit)."""


def _valid_as_named(raw: bytes, registry: Registry) -> Event | None:
    """The event, when its bytes plainly name its model and that model accepts them, read
    once; None otherwise (then the full path reads them and says why not).

    Plainly: no backslash (so every key is spelled as its bytes), and each of the two keys
    spelled once, followed by a string and by an integer literal. The model accepting the
    bytes (`_parsers_agree`) with both keys given makes that one spelling of each the top-level
    key: `json.loads` would give these values, so the full path would pick the same model and
    return the same event. The model alone is not enough: it fills in a key it is not given,
    and takes ``1.0`` or ``true`` for the literal 1.
    """
    if b"\\" in raw or raw.count(_TYPE_KEY) != 1 or raw.count(_VERSION_KEY) != 1:
        return None
    named_type, named_version = _NAMED_TYPE.search(raw), _NAMED_VERSION.search(raw)
    if named_type is None or named_version is None or not _parsers_agree():
        return None
    try:
        model = registry.resolve(named_type[1].decode("ascii"), int(named_version[1]))
        event = model.model_validate_json(raw, strict=True)
    except Exception:  # refused, or worse: the full path decides what is raised
        return None
    return event if {"event_type", "schema_version"} <= event.model_fields_set else None


class _Named(BaseModel):
    """The two top-level keys of an event that name its model, as the JSON holds them."""

    model_config = ConfigDict(extra="ignore")

    event_type: Any = None
    schema_version: Any = None


def _decode_named(raw: bytes) -> dict[str, Any]:
    """What `_decode` reads of `raw` that `_type_and_version` looks at: its event_type and
    schema_version, those it holds, with their JSON types.

    Read by pydantic's parser (`_parsers_agree`), which checks all of `raw` is JSON without
    turning the rest into Python objects: the model reads the bytes anyway (`_validate`). On
    its refusal `_decode` reads them, and words the error.
    """
    if _parsers_agree():
        try:
            named = _Named.model_validate_json(raw)
        except ValidationError:
            pass
        else:
            return {key: getattr(named, key) for key in named.model_fields_set}
    return _decode(raw)


def _parsers_agree() -> bool:
    """Whether pydantic's JSON parser refuses all that `json.loads` refuses, reading the same
    values from the rest (a duplicated key counts by its last value in both).

    It refuses more (a BOM, UTF-16, an encoded or escaped lone surrogate), and integers over
    `_INT_DIGITS` digits as Python does by default: unless Python was told to refuse fewer.
    """
    return not 0 < sys.get_int_max_str_digits() < _INT_DIGITS


def _decode(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except RecursionError:  # deeper than the parser's stack: far beyond MAX_JSON_DEPTH
        raise MalformedEventError([_too_deep()]) from None
    except (UnicodeDecodeError, ValueError) as exc:  # also an integer of over 4300 digits
        raise MalformedEventError([_malformed(f"not valid UTF-8 JSON: {exc}")]) from None
    if not isinstance(data, dict):
        raise MalformedEventError([_malformed(f"expected a JSON object, got {_json_type(data)}")])
    return data


def _type_and_version(data: dict[str, Any]) -> tuple[str, int]:
    problems = [
        p
        for p in (
            _check_key(data, "event_type", str, "a string"),
            _check_key(data, "schema_version", int, "an integer"),
        )
        if p
    ]
    if problems:
        raise EventValidationError(problems)
    return data["event_type"], data["schema_version"]


def _check_key(data: dict[str, Any], key: str, kind: type, label: str) -> FieldError | None:
    if key not in data:
        return FieldError(key, "required field is missing", ErrorCode.MISSING_FIELD)
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        reason = f"wrong type: expected {label}, got {_json_type(value)}"
        return FieldError(key, reason, ErrorCode.WRONG_TYPE)
    return None


def _validate(model: type[Event], raw: bytes) -> Event:
    try:
        return model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        errors = _without_knock_on([field_error(e, model) for e in exc.errors()])
        if any(e.code is ErrorCode.SUBJECT_MISMATCH for e in errors):
            raise SubjectMismatchError(errors) from None
        raise EventValidationError(errors) from None


def _without_knock_on(errors: list[FieldError]) -> list[FieldError]:
    # A tuple whose item failed also reports "too short after validation": noise, drop it.
    paths = [e.path for e in errors]
    return [
        e
        for e in errors
        if "after validation" not in e.reason or not any(p.startswith(e.path + "[") for p in paths)
    ]


def field_error(error: ErrorDetails, model: type[Event] | None = None) -> FieldError:
    """Translate one pydantic error into a `FieldError` with a dotted path and a reason."""
    path = format_path(error["loc"])
    kind, msg = error["type"], error["msg"].removeprefix("Value error, ")
    if kind == "missing":
        return FieldError(path, "required field is missing", ErrorCode.MISSING_FIELD)
    if kind == "extra_forbidden":
        where = f" of {_label(model)}" if model else ""
        reason = f"unknown field, not part of the contract{where}"
        return FieldError(path, reason, ErrorCode.EXTRA_FIELD)
    if kind == "subject_mismatch":
        return FieldError("subject", msg, ErrorCode.SUBJECT_MISMATCH)
    if kind.endswith(_WRONG_TYPE_SUFFIXES):
        got = _json_type(error.get("input"))
        return FieldError(path, f"wrong type: {msg} (got {got})", ErrorCode.WRONG_TYPE)
    return FieldError(path, msg, ErrorCode.INVALID_VALUE)


def format_path(loc: tuple[int | str, ...]) -> str:
    """``("payload", "inputs", 0, "role")`` -> ``payload.inputs[0].role``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in part:
            continue  # pydantic's internal names for union members and validators
        else:
            out += f".{part}" if out else part
    return out


def _label(model: type[Event]) -> str:
    fields = model.model_fields
    return f"{fields['event_type'].default} v{fields['schema_version'].default}"


def _json_type(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    names.update({list: "array", dict: "object", type(None): "null"})
    return names.get(type(value), type(value).__name__)


def _malformed(reason: str) -> FieldError:
    return FieldError("", reason, ErrorCode.MALFORMED)


def _too_deep() -> FieldError:
    return _malformed(
        f"JSON nested too deeply to read; free-form values may nest at most "
        f"MAX_JSON_DEPTH={MAX_JSON_DEPTH} levels"
    )


def _too_large(size: int) -> FieldError:
    reason = (
        f"event is {size} bytes serialized, over MAX_EVENT_BYTES={MAX_EVENT_BYTES} (256 KiB); "
        "split metrics over several events and reference large artefacts by URI"
    )
    return FieldError("", reason, ErrorCode.TOO_LARGE)
