"""What an environment snapshot holds, read from its stored properties, and how two differ.

One reading shared by `diff` (and so `best`'s "what changed"), `env-diff` and the reproduce
recipe, so that every answer counts the same elements as a change. A snapshot's contents
(`environment.snapshot.recorded`) are compared section by section: `packages`, `frameworks`,
`parallel_libs`, `compute_libs` (name -> version), `system` (free settings, nested keys
dotted), and the single values `python_version`, `driver_version`, `image` and `base_image`
(`name:tag@digest`). Identity (`key`, the snapshot id) and who built it when are not contents.
Each change is one row: section, name, `added` | `removed` | `changed`, a, b.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.schemas.storage import decode_json, record_key, record_of

MAPS = ("packages", "frameworks", "parallel_libs", "compute_libs", "system")
"""The sections stored as nested JSON (`<section>_json`)."""
SCALARS = ("python_version", "driver_version", "image", "base_image")
IMAGE_FIELDS = ("name", "tag", "digest")


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested maps as dotted names, so a change deep inside names its own leaf."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def image_ref(env: Mapping[str, Any], prefix: str = "image") -> str | None:
    """`name:tag@digest` of an environment's image (or of the record `prefix`, such as
    `base_image`), the parts that are known; None without a name."""
    image = record_of(env, prefix)
    name = image.get("name")
    if name is None:
        return None
    tag, digest = image.get("tag"), image.get("digest")
    return f"{name}{':' + tag if tag else ''}{'@' + digest if digest else ''}"


def image_parts(env: Mapping[str, Any], prefix: str = "image") -> dict[str, Any]:
    """The name, tag and digest of the image record `prefix` (None where not recorded)."""
    return {k: env.get(record_key(prefix, k)) for k in IMAGE_FIELDS}


def contents(props: Mapping[str, Any]) -> dict[str, Any]:
    """The comparable contents of an environment's stored properties, by section (`{}`
    gives the contents of no environment: empty sections, no values)."""
    out: dict[str, Any] = {name: flatten(decode_json(props, name) or {}) for name in MAPS}
    out["python_version"] = props.get("python_version")
    out["driver_version"] = props.get("driver_version")
    out["image"] = image_ref(props)
    out["base_image"] = image_ref(props, "base_image")
    return out


def changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every difference from contents `a` to contents `b`, in section order, then by name."""
    out: list[dict[str, Any]] = []
    for section in MAPS:
        left, right = a[section], b[section]
        for name in sorted(left.keys() | right.keys()):
            row = _change(
                section, name, left.get(name), right.get(name), name in left, name in right
            )
            if row is not None:
                out.append(row)
    for section in SCALARS:
        row = _change(
            section, section, a[section], b[section], a[section] is not None, b[section] is not None
        )
        if row is not None:
            out.append(row)
    return out


def _change(
    section: str, name: str, va: Any, vb: Any, in_a: bool, in_b: bool
) -> dict[str, Any] | None:
    if in_a and in_b:
        kind = "changed" if va != vb else None
    else:
        kind = "added" if in_b else ("removed" if in_a else None)
    if kind is None:
        return None
    return {"section": section, "name": name, "change": kind, "a": va, "b": vb}


# ---- the terminal text --------------------------------------------------------------------

_DIGEST = re.compile(r"(sha256:[0-9a-f]{12})[0-9a-f]{52}")


def brief(value: Any) -> Any:
    """An image digest cut to 12 hex digits in text (`--json` has it whole)."""
    return _DIGEST.sub(r"\1…", value) if isinstance(value, str) else value


def change_label(row: Mapping[str, Any]) -> str:
    """`driver_version` for a single value, `compute_libs.cuda` for an entry of a section."""
    section, name = row["section"], row["name"]
    return section if section == name else f"{section}.{name}"


def change_lines(found: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per change: `label: a -> b`, `label: added b`, `label: removed (was a)`."""
    out = []
    for row in found:
        a, b = brief(row["a"]), brief(row["b"])
        what = {"added": f"added {b}", "removed": f"removed (was {a})"}.get(row["change"])
        out.append(f"{change_label(row)}: {what or f'{a} -> {b}'}")
    return out
