"""The `compare` answer as terminal text: the table, the checks, the runs' outcomes, then the
runs that train on data whose quality gates failed or were never recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.recipes.plain_table import cell, table

Answer = Mapping[str, Any]


def _labels(runs: Sequence[Answer]) -> dict[str, str]:
    """`#<number>` when the runs are of one experiment and numbered, else their ids."""
    one = len({r["experiment"] for r in runs}) == 1
    return {
        r["id"]: f"#{r['number']}" if one and r["number"] is not None else r["id"] for r in runs
    }


def _short(version_id: str) -> str:
    """`dataset:p/web@v2` as `web@v2` (the project is the table's)."""
    return version_id.split("/", 1)[-1]


def _base(base_id: str) -> str:
    """A model version without its project (`base-1b@1.0.0`); a checkpoint id as it is."""
    return _short(base_id) if base_id.startswith("model:") else base_id


def _duration(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{seconds / 60:.1f}m"


def _inputs(run: Answer, role: str) -> str | None:
    found = [_short(i["dataset_version"]) for i in run["inputs"] if i["role"] == role]
    return ", ".join(found) or None


def _code(run: Answer) -> str | None:
    code = run["code"]
    if not code:
        return None
    commit = str(code.get("commit") or "?")[:10]
    return f"{commit} dirty" if code.get("dirty") else commit


def _row(run: Answer, roles: Sequence[str], labels: Mapping[str, str]) -> list[Any]:
    env, base = run["environment"], run["base"]
    resumed = ", ".join(c["id"] for c in run["resumed_from"]) or None
    check = run["check"]
    return [
        labels[run["id"]],
        run["name"],
        run["status"],
        *[p["value"] for p in run["params"]],
        *[_inputs(run, role) for role in roles],
        None if env is None else env["id"].split("/", 1)[-1],
        _code(run),
        None if base is None else _base(base["id"]),
        resumed,
        *[m["value"] for m in run["metrics"]],
        _duration(run["duration_s"]),
        None if check["against"] is None else len(check["changes"]),
        "FLAG" if check["flagged"] else "",
    ]


def change_text(change: Answer) -> str:
    """`lr: 0.0003 -> 0.0001`; ids without their project (`train web: web@v1 -> web@v2`)."""
    kind, before, after = change["kind"], change["before"], change["after"]
    if kind == "param":
        return f"{change['name']}: {cell(before)} -> {cell(after)}"
    if kind == "resources":
        return f"resources {change['name']}: {cell(before)} -> {cell(after)}"
    role, _, dataset = str(change["name"]).partition(" ")
    name = f"{role} {_short(dataset)}" if kind == "input" else kind
    if kind in ("input", "environment"):
        before, after = (None if v is None else _short(str(v)) for v in (before, after))
    return f"{name}: {cell(before)} -> {cell(after)}"


def _check_line(run: Answer, labels: Mapping[str, str]) -> str | None:
    check = run["check"]
    if check["against"] is None:
        return None
    head = f"{labels[run['id']]} vs {labels.get(check['against'], check['against'])}"
    changes = [change_text(c) for c in check["changes"]]
    if not changes:
        text = f"{head}: no setting differs"
    elif check["flagged"]:
        text = f"{head}: FLAGGED, {len(changes)} settings differ: " + "; ".join(changes)
    else:
        text = f"{head}: " + changes[0]
    notes = "".join(f" (note: {u})" for u in check["unverifiable"])
    return text + notes


def _outcome_line(run: Answer, labels: Mapping[str, str]) -> str | None:
    parts = []
    if run["error"] is not None:
        parts.append(f"error {run['error']['type']}: {run['error']['message']}")
    if run["abort_reason"]:
        parts.append(f"reason: {run['abort_reason']}")
    if run["conclusion"]:
        parts.append(f"conclusion: {run['conclusion']}")
    elif run["conclusion_missing"]:
        parts.append("conclusion missing")
    return f"{labels[run['id']]} {run['status']}: " + "; ".join(parts) if parts else None


def _gates_line(run: Answer, labels: Mapping[str, str]) -> str | None:
    flags = [f"{_short(f['dataset_version'])}: {f['issue']}" for f in run["data_gates"]]
    return f"{labels[run['id']]} trains on " + "; ".join(flags) if flags else None


def render_comparison(answer: Answer) -> str:
    """The table (`-` is a gap), the check of each run, the outcome of each run, and the
    runs trained on data whose gates failed or were never recorded."""
    runs = answer["runs"]
    roles = sorted({i["role"] for r in runs for i in r["inputs"]})
    header = [
        "run",
        "name",
        "status",
        *answer["params"],
        *roles,
        "env",
        "code",
        "base",
        "resumed from",
        *[m["key"] for m in answer["metrics"]],
        "duration",
        "changes",
        "flag",
    ]
    basis = "the baseline " + answer["baseline"] if answer["baseline"] else "the previous run"
    title = f"{answer['experiment'] or 'runs'}: {len(runs)} runs, each checked against {basis}"
    if answer["sort_by"]:
        title += f", sorted by {answer['sort_by']}"
    if answer["truncated"]:
        title += " (truncated: the earliest runs are left out)"
    labels = _labels(runs)
    checks = [line for r in runs if (line := _check_line(r, labels))]
    outcomes = [line for r in runs if (line := _outcome_line(r, labels))]
    parts = [title, "", table(header, [_row(r, roles, labels) for r in runs])]
    parts += ["", "One change at a time:", *(f"  {c}" for c in checks)] if checks else []
    parts += ["", "Outcomes:", *(f"  {o}" for o in outcomes)] if outcomes else []
    gates = [line for r in runs if (line := _gates_line(r, labels))]
    parts += ["", "Data gates before training:", *(f"  {g}" for g in gates)] if gates else []
    return "\n".join(parts)
