"""What every value of an event must fit: the limits of the store, written once.

Neo4j holds integers in signed 64 bits and floats as finite doubles; a user's JSON key becomes
a property name (``param.<key>``); JSON nested without bound overflows every recursive reader.
An event the store could not hold would stop projection, so the contract refuses it first.
The same limits are in the generated JSON Schema (`free_json_defs`), so a producer in any
language sees them:

- integers: -2**63 .. 2**63-1 (`INT64_MIN`, `INT64_MAX`); floats: finite;
- free-form JSON (params, metrics, facets, OpenLineage events): nested at most
  `MAX_JSON_DEPTH` (32) levels of objects and arrays, the map itself included;
- keys of a map: at most `MAX_JSON_KEYS` (1000) per object, 1..`MAX_KEY_CHARS` (256)
  characters, no control characters;
- timestamps: 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z once converted to UTC.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic_core import PydanticCustomError

from provgraph.schemas.patterns import whole

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
MAX_FLOAT = sys.float_info.max
MAX_JSON_DEPTH = 32
"""Most levels of objects and arrays in one free-form value; the value itself is level 1."""
MAX_JSON_KEYS = 1000
"""Most keys of one object of a free-form value (or of a typed map)."""
MAX_KEY_CHARS = 256
"""Longest key of a map: it becomes part of a Neo4j property name."""
KEY_RE = whole(r"[^\x00-\x1F\x7F]{1,256}")
"""A map key: 1..256 characters, none of them a control character (ECMA and Python)."""
KEY_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_KEY_CHARS,
    "not": {"pattern": "[\\x00-\\x1F\\x7F]"},
}
"""`KEY_RE` in JSON Schema (a pattern would become pydantic's `patternProperties`, which
lets other keys through)."""

TIME_MIN = datetime(1970, 1, 1, tzinfo=UTC)
TIME_MAX = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)

_KEY = re.compile(KEY_RE)


def _problem(kind: str, message: str, **context: Any) -> PydanticCustomError:
    return PydanticCustomError(kind, message, context)


# ---- free-form JSON ------------------------------------------------------------------------


def check_key(key: str, where: str = "") -> str:
    """A map key as the contract allows it; `PydanticCustomError` naming it otherwise."""
    if _KEY.fullmatch(key) is None:
        at = f" at {where}" if where else ""
        raise _problem(
            "map_key",
            "key {key}{at} is not allowed: keys are 1-{n} characters without control characters",
            key=repr(key[:80]),
            at=at,
            n=MAX_KEY_CHARS,
        )
    return key


def check_scalar(value: Any, where: str = "") -> Any:
    """A JSON scalar the store can hold: an integer within 64 bits, a finite float."""
    at = f" at {where}" if where else ""
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise _problem(
                "int64",
                "integer {value}{at} is outside signed 64 bits ({lo}..{hi}); "
                "send it as a string or a float",
                value=_short(value),
                at=at,
                lo=INT64_MIN,
                hi=INT64_MAX,
            )
    elif isinstance(value, float) and not math.isfinite(value):
        raise _problem("finite_number", "number{at} is not finite", at=at)
    return value


def check_free_json(value: dict[str, Any]) -> dict[str, Any]:
    """A free-form map (params, metrics, facets, ...) within every limit of the module.

    Iterative, so a value nested deeper than the limit is refused without recursing into it.
    """
    for item, depth, where in _walk(value):
        if not isinstance(item, dict | list):
            check_scalar(item, where)
            continue
        if depth > MAX_JSON_DEPTH:
            raise _problem(
                "json_depth",
                "{where} is nested deeper than MAX_JSON_DEPTH={n} levels of objects and arrays",
                where=where,
                n=MAX_JSON_DEPTH,
            )
        if isinstance(item, dict):
            _check_object(item, where)
    return value


def non_finite_path(value: Any) -> str | None:
    """The path of the first infinite or NaN float in `value` (within `MAX_JSON_DEPTH`)."""
    for item, _, where in _walk(value):
        if isinstance(item, float) and not math.isfinite(item):
            return where
    return None


def _check_object(item: dict[str, Any], where: str) -> None:
    if len(item) > MAX_JSON_KEYS:
        raise _problem(
            "json_keys",
            "{what} has {count} keys, more than MAX_JSON_KEYS={n}",
            what=f"object at {where}" if where else "the map",
            count=len(item),
            n=MAX_JSON_KEYS,
        )
    for key in item:
        check_key(key, where)


def _walk(value: Any) -> Iterator[tuple[Any, int, str]]:
    """(item, level, path) of every item, depth first; the top value is at level 1."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, where = stack.pop()
        yield item, depth, where
        if depth > MAX_JSON_DEPTH:
            continue  # refused by the caller; never look deeper
        if isinstance(item, dict):
            stack += [(v, depth + 1, f"{where}.{k}" if where else k) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(v, depth + 1, f"{where}[{i}]") for i, v in enumerate(item)]


def _short(value: int) -> str:
    # str() of a 4000-digit integer is slow and unreadable; its size is what matters.
    if abs(value) < 10**40:
        return str(value)
    return f"{'-' if value < 0 else ''}<{value.bit_length()}-bit integer>"


# ---- timestamps ----------------------------------------------------------------------------


def check_time(value: datetime, text: str | None = None) -> datetime:
    """An aware datetime, in UTC, within `TIME_MIN`..`TIME_MAX`; `PydanticCustomError` else
    (quoting `text`, the timestamp as written, when given).

    As written, the date lies in 1970-01-01..9999-12-31 too, and on those two days the offset
    may only point inwards (a positive offset on 1970-01-01, a negative one on 9999-12-31, is
    refused): the rule a JSON Schema pattern can state, so that both say the same.
    """
    try:
        utc = value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00:00-01:00 is in year 10000
        utc = None
    if utc is None or not TIME_MIN <= utc <= TIME_MAX or _written_outside(value):
        raise _problem(
            "time_range",
            "timestamp '{value}' is out of range: in UTC it must lie between "
            "1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z (on those two days, "
            "write it in UTC)",
            value=text or value.isoformat(),
        )
    return utc


def _written_outside(value: datetime) -> bool:
    """The local date is outside the range, or on an edge day with an outward offset."""
    offset = value.utcoffset()
    seconds = offset.total_seconds() if offset is not None else 0.0
    day, first, last = value.date(), TIME_MIN.date(), TIME_MAX.date()
    if not first <= day <= last:
        return True
    return (day == first and seconds > 0) or (day == last and seconds < 0)


# ---- the same limits in JSON Schema ----------------------------------------------------------

FREE_JSON_MARK = "x-provgraph-free-json"
"""The key by which a free-form map's JSON Schema says where the shared definitions go."""
FREE_JSON_REF = "#/$defs/FreeJsonObject"


def int_schema(minimum: int, maximum: int) -> dict[str, Any]:
    """The JSON Schema of an integer within `minimum`..`maximum`, each bound written as a
    number an IEEE double holds exactly, so that a validator reading JSON numbers as doubles
    (JavaScript's ajv) gives the same answer as one reading exact integers (Python) for every
    number it can hold: 2**63 - 1 is read as 2**63 there, so the top of 64 bits is written
    ``exclusiveMaximum: 2**63``, not ``maximum: 2**63 - 1`` (which would let 2**63 through)."""
    schema: dict[str, Any] = {"type": "integer"}
    if float(minimum) == minimum:
        schema["minimum"] = minimum
    elif float(minimum - 1) == minimum - 1:
        schema["exclusiveMinimum"] = minimum - 1
    else:
        raise ValueError(f"no exact double at or just below {minimum}")
    if float(maximum) == maximum:
        schema["maximum"] = maximum
    elif float(maximum + 1) == maximum + 1:
        schema["exclusiveMaximum"] = maximum + 1
    else:
        raise ValueError(f"no exact double at or just above {maximum}")
    return schema


def int64_schema(minimum: int = INT64_MIN, maximum: int = INT64_MAX) -> dict[str, Any]:
    """The JSON Schema of an integer within signed 64 bits (and `minimum`..`maximum`)."""
    return int_schema(max(minimum, INT64_MIN), min(maximum, INT64_MAX))


def scalar_schema(max_length: int | None = None) -> dict[str, Any]:
    """A JSON scalar the store can hold. JSON Schema compares values, not spellings: a whole
    number written as ``1e20`` is an integer to it, so it is refused like ``100000000000000000000``
    (the service itself accepts ``1e20``, a float)."""
    text: dict[str, Any] = {"type": "string"}
    if max_length is not None:
        text["maxLength"] = max_length
    floats = {"type": "number", "not": {"type": "integer"}}
    finite = {**floats, "minimum": -MAX_FLOAT, "maximum": MAX_FLOAT}
    # One type per branch: ajv's strict mode warns about a list of types.
    return {"anyOf": [text, {"type": "boolean"}, {"type": "null"}, int64_schema(), finite]}


def _object_schema(values_ref: str) -> dict[str, Any]:
    return {
        "type": "object",
        "maxProperties": MAX_JSON_KEYS,
        "propertyNames": {"$ref": "#/$defs/FreeJsonKey"},
        "additionalProperties": {"$ref": values_ref},
    }


def free_json_defs() -> dict[str, dict[str, Any]]:
    """The `$defs` a free-form map refers to: ``FreeJson<k>`` is a value with at most k
    levels of objects and arrays, so the depth bound holds without recursion."""
    defs: dict[str, dict[str, Any]] = {
        "FreeJsonKey": KEY_SCHEMA,
        "FreeJsonScalar": scalar_schema(),
        "FreeJson0": {"$ref": "#/$defs/FreeJsonScalar"},
    }
    for level in range(1, MAX_JSON_DEPTH):
        below = f"#/$defs/FreeJson{level - 1}"
        defs[f"FreeJson{level}"] = {
            "anyOf": [
                {"$ref": "#/$defs/FreeJsonScalar"},
                _object_schema(below),
                {"type": "array", "items": {"$ref": below}},
            ]
        }
    defs["FreeJsonObject"] = _object_schema(f"#/$defs/FreeJson{MAX_JSON_DEPTH - 1}")
    return defs
