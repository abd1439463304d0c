"""Validation of OpenLineage events against the OpenLineage 2-0-x core JSON Schema.

The schema file ships with this package (see SPEC-SOURCE.md beside it). An event is checked
against the definition its shape names (``run`` -> RunEvent, ``dataset`` -> DatasetEvent,
else JobEvent), so an error points at the field that is wrong rather than at a failed
``oneOf`` over the three kinds.
"""

from __future__ import annotations

import json
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

from provgraph.schemas import ErrorCode, FieldError

SPEC_VERSION = "2-0-2"
_SCHEMA_FILE = "OpenLineage-2-0-2.schema.json"


class OpenLineageKind(StrEnum):
    """The three kinds of OpenLineage event."""

    RUN = "RunEvent"
    DATASET = "DatasetEvent"
    JOB = "JobEvent"


def kind_of(event: dict[str, Any]) -> OpenLineageKind:
    """Which kind of OpenLineage event this object is, by its shape."""
    if "run" in event:
        return OpenLineageKind.RUN
    if "dataset" in event:
        return OpenLineageKind.DATASET
    return OpenLineageKind.JOB


def looks_like_openlineage(data: object) -> bool:
    """True for an object with OpenLineage's envelope keys and no provgraph ``event_type``."""
    return (
        isinstance(data, dict)
        and "event_type" not in data
        and "eventTime" in data
        and ("run" in data or "job" in data or "dataset" in data)
    )


@cache
def spec_schema() -> dict[str, Any]:
    """The OpenLineage core schema (parsed once)."""
    text = resources.files(__package__).joinpath(_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(kind: OpenLineageKind) -> Draft202012Validator:
    schema = {**spec_schema(), "$ref": f"#/$defs/{kind.value}"}
    schema.pop("oneOf")
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _path(error: ValidationError) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def spec_errors(event: object) -> list[FieldError]:
    """Every violation of the OpenLineage schema by `event` (empty when it is valid): the
    JSON path of the offending value and the validator's message, as an `invalid_value`."""
    if not isinstance(event, dict):
        return [_invalid("$", "an OpenLineage event is a JSON object")]
    errors = _validator(kind_of(event)).iter_errors(event)
    ordered = sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [_invalid(_path(e), e.message) for e in ordered]


def _invalid(path: str, message: str) -> FieldError:
    return FieldError(path, message, ErrorCode.INVALID_VALUE)
