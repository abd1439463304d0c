"""The example files against the models and against the generated JSON Schema files.

Valid examples must pass both. Invalid examples must fail the models, and fail the JSON
Schema too unless the rule cannot be written in JSON Schema (listed in MODEL_ONLY with why).
The JSON Schema is read by Python's jsonschema as it comes, with format checking: its patterns
mean the same there as in ECMA 262 (tests/integration/contract compares it with ajv).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from support.contract_examples import MODEL_ONLY

from provgraph.schemas import REGISTRY, ContractError, parse_event
from provgraph.schemas.jsonschema_gen import SCHEMA_DIR, file_name

pytestmark = pytest.mark.unit

EXAMPLES = SCHEMA_DIR.parent / "examples"
VALID = sorted((EXAMPLES / "valid").glob("*.json"))
INVALID = sorted((EXAMPLES / "invalid").glob("*.json"))


def schema_errors(event: dict[str, Any]) -> list[str]:
    """What the generated JSON Schema of the event's type and version says against it."""
    path = SCHEMA_DIR / file_name(str(event.get("event_type")), int(event["schema_version"]))
    if not path.exists():
        return [f"no schema file {path.name}"]
    schema = _load(path)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [e.message for e in validator.iter_errors(event)]


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_passes_the_models(path: Path) -> None:
    event = parse_event(path.read_bytes())
    assert event.event_type == _load(path)["event_type"]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_passes_the_json_schema(path: Path) -> None:
    assert schema_errors(_load(path)) == []


def test_valid_examples_have_their_own_event_ids() -> None:
    """Every valid example can be posted to one stack beside the others: two files with one
    event_id (an older schema version's example copied from the current one, say) would make
    the second a conflicting duplicate (409)."""
    owners: dict[str, list[str]] = {}
    for path in VALID:
        owners.setdefault(str(parse_event(path.read_bytes()).event_id), []).append(path.name)
    assert {i: names for i, names in owners.items() if len(names) > 1} == {}


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_example_fails_the_models(path: Path) -> None:
    with pytest.raises(ContractError) as caught:
        parse_event(path.read_bytes())
    assert str(caught.value)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_example_fails_the_json_schema(path: Path) -> None:
    errors = schema_errors(_load(path))
    if path.name in MODEL_ONLY:
        assert errors == [], f"{path.name} is listed as model-only but the schema rejects it"
    else:
        assert errors, f"JSON Schema accepts {path.name}"


def test_every_event_type_and_version_has_valid_and_invalid_examples() -> None:
    def covered(paths: list[Path]) -> set[tuple[str, int]]:
        return {(d["event_type"], d["schema_version"]) for d in map(_load, paths)}

    registered = {(t, v) for t in REGISTRY.event_types() for v in REGISTRY.versions(t)}
    assert registered - covered(VALID) == set()
    invalid_types = {t for t, _ in covered(INVALID)}
    assert set(REGISTRY.event_types()) - invalid_types == set()


def test_model_only_exceptions_exist() -> None:
    names = {p.name for p in INVALID}
    assert set(MODEL_ONLY) <= names
