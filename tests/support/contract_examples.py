"""The contract's example files (schemas/examples) and the rules JSON Schema cannot state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schemas" / "jsonschema"
EXAMPLES = ROOT / "schemas" / "examples"
VALID = sorted((EXAMPLES / "valid").glob("*.json"))
INVALID = sorted((EXAMPLES / "invalid").glob("*.json"))

MODEL_ONLY = {
    "run.started.subject-mismatch.json": "subject consistency needs the payload-to-id rule",
    "run.started.scaled-from-itself.json": "the pilot compared with the run's own id",
    "project.policy.set.alias-of-an-alias.json": "an alias compared with the other aliases",
    "access.revoked.other-project.json": "subject consistency (grant for another project)",
    "dataset.version.created.split-ratios-over-one.json": "a sum across fields",
    "deployment.updated.shares-sum-over-one.json": "a sum across array items",
}
"""Invalid examples whose rule compares two values of the event: the models refuse them, a
JSON Schema validator cannot (docs/events.md lists these rules)."""


def load(path: Path) -> Any:
    """The JSON of an example file."""
    return json.loads(path.read_text(encoding="utf-8"))


def schema_patterns(node: Any) -> Iterator[str]:
    """Every `pattern` string in a JSON Schema document, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from schema_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from schema_patterns(value)
