"""Generate the JSON Schema files (one per event_type and schema_version) from the models.

python -m provgraph.schemas.jsonschema_gen           # rewrite schemas/jsonschema/*.json
python -m provgraph.schemas.jsonschema_gen --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from provgraph.schemas.envelope import Event
from provgraph.schemas.limits import FREE_JSON_MARK, FREE_JSON_REF, free_json_defs
from provgraph.schemas.registry import REGISTRY, Registry, type_and_version

# schemas/jsonschema/ beside the source root (schemas/src/provgraph/schemas/): it is published
# for other languages, not imported; pass --dir outside a checkout.
SCHEMA_DIR = Path(__file__).resolve().parents[3] / "jsonschema"
SCHEMA_BASE_URL = "https://provgraph.dev/schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_id(event_type: str, version: int) -> str:
    """The ``$id`` of a schema, e.g. ``https://provgraph.dev/schemas/run.started/v1.json``."""
    return f"{SCHEMA_BASE_URL}/{event_type}/v{version}.json"


def file_name(event_type: str, version: int) -> str:
    """``<event_type>.v<N>.json``."""
    return f"{event_type}.v{version}.json"


def schema_for(model: type[Event]) -> dict[str, Any]:
    """The JSON Schema of one event model, as producers in any language should use it."""
    event_type, version = type_and_version(model)
    body = model.model_json_schema(mode="validation")
    # Literal defaults make these optional in Python; on the wire they are required.
    body["required"] = ["event_type", "schema_version", *body.get("required", [])]
    head = {
        "$schema": DIALECT,
        "$id": schema_id(event_type, version),
        "title": f"{event_type} v{version}",
    }
    return with_free_json(head | {k: v for k, v in body.items() if k != "title"})


def with_free_json(schema: dict[str, Any]) -> dict[str, Any]:
    """Free-form maps (marked by `FREE_JSON_MARK`) refer to the shared definitions of the
    contract's limits (depth, keys, 64-bit integers), which are added when used."""
    marked = [False]

    def swap(node: Any) -> Any:
        if isinstance(node, list):
            return [swap(item) for item in node]
        if not isinstance(node, dict):
            return node
        if node.get(FREE_JSON_MARK):
            marked[0] = True
            # `type` stays beside the reference: ajv's strict mode wants it where `required` or
            # `properties` are added to the map (OpenLineage's job).
            rest = {k: v for k, v in node.items() if k != FREE_JSON_MARK}
            return {"$ref": FREE_JSON_REF, **rest}
        return {k: swap(v) for k, v in node.items()}

    out: dict[str, Any] = swap(schema)
    if marked[0]:
        out["$defs"] = {**out.get("$defs", {}), **free_json_defs()}
    return out


def render(schema: dict[str, Any]) -> str:
    """Stable text of a schema file."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def expected_files(registry: Registry = REGISTRY) -> dict[str, str]:
    """File name -> content for every registered model."""
    files = {}
    for model in registry.models():
        files[file_name(*type_and_version(model))] = render(schema_for(model))
    return files


def stale_files(directory: Path = SCHEMA_DIR, registry: Registry = REGISTRY) -> list[str]:
    """Files that are missing, different, or no longer generated."""
    expected = expected_files(registry)
    present = {p.name for p in directory.glob("*.json")}
    stale = [n for n, text in expected.items() if _read(directory / n) != text]
    return sorted(stale + [n for n in present - expected.keys()])


def write_all(directory: Path = SCHEMA_DIR, registry: Registry = REGISTRY) -> list[str]:
    """Rewrite the schema files; remove ones no model generates. Returns changed names."""
    directory.mkdir(parents=True, exist_ok=True)
    expected = expected_files(registry)
    changed = stale_files(directory, registry)
    for name in changed:
        path = directory / name
        if name in expected:
            path.write_text(expected[name], encoding="utf-8")
        else:
            path.unlink()
    return changed


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only report stale files")
    parser.add_argument("--dir", type=Path, default=SCHEMA_DIR, help="output directory")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.dir)
        for name in stale:
            print(f"stale: {args.dir / name}", file=sys.stderr)
        if stale:
            print("run: python -m provgraph.schemas.jsonschema_gen", file=sys.stderr)
        return 1 if stale else 0
    for name in write_all(args.dir):
        print(f"wrote {args.dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
