"""Pure part of `env-diff` and `runs-with`: what differs between two environment snapshots,
step by step along the BASED_ON chain between them, and which runs ran with a package.

A snapshot's contents (`environment.snapshot.recorded`) are compared section by section:
`packages`, `frameworks`, `parallel_libs`, `compute_libs` (name -> version), `system` (free
settings, nested keys dotted), and the single values `python_version`, `driver_version`,
`image` and `base_image` (`name:tag@digest`). Identity (`key`) and who built it when are not
contents. Each change is one row: section, name, `added` | `removed` | `changed`, a, b.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.diffing import flatten, image_ref
from provgraph.query.recipes.plain_table import table
from provgraph.schemas.storage import decode_json, dotted

MAPS = ("packages", "frameworks", "parallel_libs", "compute_libs", "system")
"""The sections stored as nested JSON (`<section>_json`)."""
SCALARS = ("python_version", "driver_version", "image", "base_image")
SECTIONS = (*MAPS, *SCALARS)

VERSION_SECTIONS = {
    "packages": "package",
    "frameworks": "framework",
    "parallel_libs": "parallel_lib",
    "compute_libs": "compute_lib",
}
"""The name -> version sections a package may be recorded in, with their flattened prefix."""


def contents(props: Mapping[str, Any]) -> dict[str, Any]:
    """The comparable contents of an environment's stored properties, by section."""
    out: dict[str, Any] = {name: flatten(decode_json(props, name) or {}) for name in MAPS}
    out["python_version"] = props.get("python_version")
    out["driver_version"] = props.get("driver_version")
    out["image"] = image_ref(props)
    out["base_image"] = image_ref(_record_as_image(props, "base_image"))
    return out


def _record_as_image(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The `<prefix>_*` record renamed `image_*`, for `image_ref`."""
    start = f"{prefix}_"
    return {f"image_{k[len(start) :]}": v for k, v in props.items() if k.startswith(start)}


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


def chain_steps(
    nodes: Sequence[Mapping[str, Any]], rels: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The BASED_ON path from a to b as steps: each from one snapshot to the next, `newer`
    when the next is based on this one (else `older`), with the changes of the step."""
    based_on = {(str(r["src"]), str(r["dst"])) for r in rels}
    steps = []
    for left, right in pairwise(nodes):
        relation = "newer" if (right["id"], left["id"]) in based_on else "older"
        steps.append(
            {
                "from": left["id"],
                "to": right["id"],
                "relation": relation,
                "changes": changes(contents(left), contents(right)),
            }
        )
    return steps


def env_diff_answer(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    path: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The answer: the changes from a to b, and the chain between them when they are related
    by BASED_ON (`path` = {nodes, rels} of the shortest such path; None when unrelated)."""
    found = changes(contents(a), contents(b))
    steps = chain_steps(path["nodes"], path["rels"]) if path else None
    return {
        "a": a["id"],
        "b": b["id"],
        "same": not found,
        "changes": found,
        "related": path is not None or a["id"] == b["id"],
        "chain": steps,
    }


# ---- runs-with ----------------------------------------------------------------------------

_SPEC = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._+-]*)\s*(?:==\s*(?P<version>\S+))?\s*$")


def parse_spec(spec: str) -> tuple[str, str | None]:
    """`torch==2.5.1` -> ("torch", "2.5.1"); `torch` -> ("torch", None)."""
    found = _SPEC.match(spec)
    if found is None:
        raise InvalidArgumentError(
            f"expected PACKAGE or PACKAGE==VERSION, got {spec!r}", argument="package"
        )
    return found["name"], found["version"]


def spellings(name: str) -> list[str]:
    """The spellings a package name may be recorded under: as given, lower-cased, and PEP 503
    normalised with `-` and with `_` (`Flash_Attn` -> flash-attn, flash_attn)."""
    lowered = name.lower()
    normal = re.sub(r"[-_.]+", "-", lowered)
    out = [name, lowered, normal, normal.replace("-", "_")]
    return list(dict.fromkeys(out))


def lookup_keys(name: str) -> list[str]:
    """Every flattened property a version of `name` may be stored under, packages first."""
    return [dotted(prefix, n) for prefix in VERSION_SECTIONS.values() for n in spellings(name)]


def section_of(key: str) -> tuple[str, str]:
    """(section, recorded name) of a flattened key such as `package.torch`."""
    prefix, _, name = key.partition(".")
    section = next(s for s, p in VERSION_SECTIONS.items() if p == prefix)
    return section, name


def pick_hit(hits: Iterable[Mapping[str, Any]], version: str | None) -> Mapping[str, Any]:
    """The hit to report: the first matching `version` (or the first, packages first)."""
    listed = list(hits)
    return next((h for h in listed if version is None or h["version"] == version), listed[0])


def runs_with_answer(
    package: str,
    version: str | None,
    project: str | None,
    rows: Sequence[Mapping[str, Any]],
    limit: int,
) -> dict[str, Any]:
    """The runs that ran in an environment recording `package` (at `version`), oldest first,
    at most `limit` of them (`truncated` when there were more)."""
    runs = []
    for row in rows[:limit]:
        hit = pick_hit(row["hits"], version)
        section, recorded = section_of(str(hit["key"]))
        runs.append(
            {
                **row["run"],
                "experiment": row.get("experiment"),
                "environment": row["environment"],
                "section": section,
                "recorded_as": recorded,
                "version": hit["version"],
            }
        )
    return {
        "package": package,
        "version": version,
        "project": project,
        "runs": runs,
        "truncated": len(rows) > limit,
    }


# ---- the terminal answers -----------------------------------------------------------------


def render_env_diff(answer: Mapping[str, Any]) -> str:
    """The changes a -> b as a table, then each step of the chain with its own changes."""
    lines = [f"{answer['a']} -> {answer['b']}"]
    lines.append(_changes_text(answer["changes"]))
    chain = answer["chain"]
    if chain is None:
        lines.append("" if answer["related"] else "\nnot related by BASED_ON")
        return "\n".join(lines).rstrip()
    if len(chain) == 1:  # the one step is the table above
        step = chain[0]
        lines.append(f"\nalong the BASED_ON chain: 1 step, {step['from']} -> {step['to']}")
        lines[-1] += f" ({step['relation']})"
        return "\n".join(lines)
    lines.append(f"\nalong the BASED_ON chain ({len(chain)} steps):")
    for step in chain:
        lines.append(f"\n{step['from']} -> {step['to']} ({step['relation']})")
        lines.append(_changes_text(step["changes"]))
    return "\n".join(lines)


def _changes_text(found: Sequence[Mapping[str, Any]]) -> str:
    if not found:
        return "same contents"
    rows = [[c["section"], c["name"], c["change"], _brief(c["a"]), _brief(c["b"])] for c in found]
    return table(["section", "name", "change", "a", "b"], rows)


_DIGEST = re.compile(r"(sha256:[0-9a-f]{12})[0-9a-f]{52}")


def _brief(value: Any) -> Any:
    """An image digest cut to 12 hex digits in the table (`--json` has it whole)."""
    return _DIGEST.sub(r"\1…", value) if isinstance(value, str) else value


def render_runs_with(answer: Mapping[str, Any]) -> str:
    """The runs as a table; a line saying so when there are none or the list was cut."""
    wanted = answer["package"] + (f"=={answer['version']}" if answer["version"] else "")
    if not answer["runs"]:
        return f"no run ran with {wanted}"
    rows = [
        [
            r["id"],
            r.get("run_number"),
            r.get("name"),
            r.get("status"),
            r.get("started_at"),
            r["environment"],
            f"{r['recorded_as']}=={r['version']}",
        ]
        for r in answer["runs"]
    ]
    header = ["run", "number", "name", "status", "started", "environment", wanted.split("==")[0]]
    out = [f"runs with {wanted}:", table(header, rows)]
    if answer["truncated"]:
        out.append(f"(the first {len(rows)}; raise --limit for more)")
    return "\n".join(out)
