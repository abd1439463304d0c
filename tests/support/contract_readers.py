"""The three readers of the contract, asked about the same events: the service's models
(`parse_event`, what the ingest service runs), Python's jsonschema and ajv (npm: draft 2020-12
with ajv-formats, run by node through schemas/ajv/validate.mjs with its default options), the
last two on the committed JSON Schemas as a producer in another language uses them."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from provgraph.schemas import ContractError, parse_event
from support.contract_examples import ROOT, SCHEMA_DIR, load

AJV_DIR = ROOT / "schemas" / "ajv"
Where = tuple[str | int, ...]
Verdicts = tuple[bool, bool, bool]
"""(the service, Python's jsonschema, ajv): True when it accepts the event."""


def ajv(request: dict[str, Any]) -> dict[str, Any]:
    """schemas/ajv/validate.mjs's answer to `request` (see the script)."""
    node = shutil.which("node")
    assert node, "Node.js is missing: install it (Debian: apt-get install nodejs npm)"
    assert (AJV_DIR / "node_modules" / "ajv").is_dir(), (
        "ajv is not installed: run `make schemas-js` (npm ci in schemas/ajv)"
    )
    done = subprocess.run(
        [node, str(AJV_DIR / "validate.mjs"), "--json"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, f"validate.mjs failed:\n{done.stderr}"
    assert done.stderr == "", f"ajv warned (its strict mode, on the schemas):\n{done.stderr}"
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@cache
def _python_validator(event_type: str, version: int) -> Draft202012Validator | None:
    path = SCHEMA_DIR / f"{event_type}.v{version}.json"
    if not path.exists():
        return None
    checker = Draft202012Validator.FORMAT_CHECKER
    return Draft202012Validator(load(path), format_checker=checker)


def python_accepts(event: dict[str, Any]) -> bool:
    """Python's jsonschema, with format checking, on the event's own schema."""
    validator = _python_validator(str(event.get("event_type")), int(event["schema_version"]))
    return validator is not None and validator.is_valid(event)


def server_accepts(event: dict[str, Any]) -> bool:
    """The service's answer: the contract's models on the event's JSON bytes."""
    try:
        parse_event(json.dumps(event).encode())
    except ContractError:
        return False
    return True


def verdicts(events: list[dict[str, Any]]) -> list[Verdicts]:
    """Each reader's answer on each event (ajv in one run of node)."""
    js = [answer["valid"] for answer in ajv({"events": events})["events"]]
    return [(server_accepts(e), python_accepts(e), j) for e, j in zip(events, js, strict=True)]


def texts(node: Any, path: Where = ()) -> Iterator[Where]:
    """The path of every string value in `node` (not of object keys)."""
    if isinstance(node, str):
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from texts(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from texts(value, (*path, index))


def get(node: Any, path: Where) -> Any:
    for part in path:
        node = node[part]
    return node


def with_value(event: dict[str, Any], path: Where, value: Any) -> dict[str, Any]:
    """A copy of `event` with `value` at `path`."""
    copied = copy.deepcopy(event)
    get(copied, path[:-1])[path[-1]] = value
    return copied
