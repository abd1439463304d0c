"""The example files against the models and against the generated JSON Schema files.

Valid examples must pass both. Invalid examples must fail the models, and fail the JSON
Schema too unless the rule cannot be written in JSON Schema (listed in MODEL_ONLY with why).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError, validators

from provgraph.schemas import REGISTRY, ContractError, parse_event
from provgraph.schemas.jsonschema_gen import SCHEMA_DIR, file_name

pytestmark = pytest.mark.unit

EXAMPLES = SCHEMA_DIR.parent / "examples"
VALID = sorted((EXAMPLES / "valid").glob("*.json"))
INVALID = sorted((EXAMPLES / "invalid").glob("*.json"))

MODEL_ONLY = {
    "run.started.subject-mismatch.json": "subject consistency needs the payload-to-id rule",
    "access.revoked.other-project.json": "subject consistency (grant for another project)",
    "dataset.version.created.split-ratios-over-one.json": "a sum across fields",
    "deployment.updated.shares-sum-over-one.json": "a sum across array items",
    "model.version.status.changed.backwards.json": "allowed transitions depend on two fields",
}


def _ecma_pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    # JSON Schema patterns are ECMA 262, where `$` matches at the very end only; Python's `$`
    # also matches before a final newline ("run:r1\n"), so read it as `\Z` here.
    python = re.sub(r"(?<!\\)\$", r"\\Z", pattern)
    if isinstance(instance, str) and re.search(python, instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


EcmaValidator = validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


def schema_errors(event: dict[str, Any]) -> list[str]:
    """What the generated JSON Schema of the event's type and version says against it."""
    path = SCHEMA_DIR / file_name(str(event.get("event_type")), int(event["schema_version"]))
    if not path.exists():
        return [f"no schema file {path.name}"]
    validator = EcmaValidator(_load(path), format_checker=Draft202012Validator.FORMAT_CHECKER)
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
