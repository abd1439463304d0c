"""Pure part of `env-diff` and `runs-with`: what differs between two environment snapshots,
step by step along the BASED_ON chain between them, and which runs ran with a package.

A snapshot's contents and their changes are read by `recipes.env_contents`, the one reading
`diff` and the reproduce recipe share: section by section, one row per change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.env_contents import brief, changes, contents
from provgraph.query.recipes.plain_table import table
from provgraph.schemas.storage import dotted

VERSION_SECTIONS = {
    "packages": "package",
    "frameworks": "framework",
    "parallel_libs": "parallel_lib",
    "compute_libs": "compute_lib",
}
"""The name -> version sections a package may be recorded in, with their flattened prefix."""


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
    rows = [[c["section"], c["name"], c["change"], brief(c["a"]), brief(c["b"])] for c in found]
    return table(["section", "name", "change", "a", "b"], rows)


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
