"""Pure comparison of two runs, aspect by aspect: what `Recipes.diff` reports at each level.

A level *differs* when one of the causes differs: params, inputs, environment, code, the
base (started-from model or checkpoint, checkpoints of other runs it resumed from; a resume from
its own checkpoint continues the run after an interruption and is not a cause), or the
resources (`recipes/resources.py`: machines, devices, accelerator, parallelism; named, and
shown in the answer, only when they differ, so answers about runs of the same resources are
unchanged). Final metrics are outcomes: reported with their deltas, never counted as the cause.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from provgraph.query.recipes.env_contents import changes, contents, flatten
from provgraph.query.recipes.resources import RESOURCES, resources_of
from provgraph.schemas.storage import PARAMS, decode_json, record_of

CAUSES = ("params", "inputs", "environment", "code", "base")
"""The causes a level that does not differ names as the same (resources: only when changed)."""


@dataclass(frozen=True)
class Base:
    """What a run started from: a model version or a checkpoint, and the run that made it."""

    id: str
    type: str
    run: str | None


@dataclass(frozen=True)
class RunFacts:
    """The comparable content of one run (an absent run is `RunFacts(None)`)."""

    id: str | None
    params: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    environment: str | None = None
    env_contents: Mapping[str, Any] = field(default_factory=lambda: contents({}))
    code: Mapping[str, Any] = field(default_factory=dict)
    base: Base | None = None
    resumed_from: tuple[str, ...] = ()
    resumed_steps: tuple[int, ...] = ()  # of the resumes from other runs' checkpoints
    metrics: Mapping[str, Any] = field(default_factory=dict)
    resources: Mapping[str, Any] = field(default_factory=dict)


def map_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Keys only in b (added), only in a (removed), in both with other values (changed)."""
    return {
        "added": {k: b[k] for k in sorted(b.keys() - a.keys())},
        "removed": {k: a[k] for k in sorted(a.keys() - b.keys())},
        "changed": {k: {"a": a[k], "b": b[k]} for k in sorted(a.keys() & b.keys()) if a[k] != b[k]},
    }


def _changed(d: Mapping[str, Any]) -> bool:
    return bool(d["added"] or d["removed"] or d["changed"])


def diff_inputs(a: RunFacts, b: RunFacts) -> dict[str, dict[str, list[str]]]:
    """Per role, the dataset versions only b used (added) and only a used (removed)."""
    out: dict[str, dict[str, list[str]]] = {}
    for role in sorted(a.inputs.keys() | b.inputs.keys()):
        left, right = set(a.inputs.get(role, ())), set(b.inputs.get(role, ()))
        if left != right:
            out[role] = {"added": sorted(right - left), "removed": sorted(left - right)}
    return out


def diff_environment(a: RunFacts, b: RunFacts) -> dict[str, Any]:
    """Every recorded element that differs (`changes`, as `env-diff` lists them), with the
    image and the packages also as before; a new snapshot id with the same contents is not a
    change of environment, a run without one beside a run with one is."""
    ca, cb = a.env_contents, b.env_contents
    found = changes(ca, cb)
    return {
        "a": a.environment,
        "b": b.environment,
        "image": {"a": ca["image"], "b": cb["image"]},
        "packages": map_diff(ca["packages"], cb["packages"]),
        "changes": found,
        "changed": bool(found) or ((a.environment is None) != (b.environment is None)),
    }


def diff_code(a: RunFacts, b: RunFacts) -> dict[str, Any]:
    return {"a": dict(a.code), "b": dict(b.code), "changed": dict(a.code) != dict(b.code)}


def diff_base(a: RunFacts, b: RunFacts) -> dict[str, Any]:
    started = {
        "a": a.base.id if a.base else None,
        "b": b.base.id if b.base else None,
    }
    resumed = {"a": list(a.resumed_from), "b": list(b.resumed_from)}
    return {
        "started_from": started,
        "resumed_from": resumed,
        "changed": started["a"] != started["b"] or a.resumed_steps != b.resumed_steps,
    }


def _delta(a: Any, b: Any) -> float | None:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    return float(b - a) if numbers else None


def diff_metrics(a: RunFacts, b: RunFacts) -> dict[str, dict[str, Any]]:
    """Every final metric of either run: both values and b - a (None unless both numbers)."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(a.metrics.keys() | b.metrics.keys()):
        va, vb = a.metrics.get(name), b.metrics.get(name)
        out[name] = {"a": va, "b": vb, "delta": _delta(va, vb)}
    return out


def next_pair(a: RunFacts, b: RunFacts) -> tuple[bool, tuple[str, str] | None]:
    """Whether the bases themselves are a cause here, and the runs to compare one level up.

    Two different bases made by two different runs are compared one level up instead: the
    difference is found where it started. Same base: nothing more to compare.
    """
    x, y = a.base, b.base
    if x is None and y is None:
        return False, None
    if x is None or y is None or x.type != y.type:
        return True, None
    if x.id == y.id:
        return False, None
    if x.run is not None and y.run is not None and x.run != y.run:
        return False, (x.run, y.run)
    return True, None


def causes(a: RunFacts, b: RunFacts) -> list[str]:
    """The aspects of one level that differ (in `CAUSES` order)."""
    found = []
    if _changed(map_diff(a.params, b.params)):
        found.append("params")
    if diff_inputs(a, b):
        found.append("inputs")
    if diff_environment(a, b)["changed"]:
        found.append("environment")
    if diff_code(a, b)["changed"]:
        found.append("code")
    base_cause, _ = next_pair(a, b)
    if base_cause or a.resumed_steps != b.resumed_steps:
        found.append("base")
    if _changed(map_diff(a.resources, b.resources)):
        found.append(RESOURCES)
    return found


def compare(a: RunFacts, b: RunFacts) -> dict[str, Any]:
    """The detailed comparison of one pair of runs (`resources` only when they differ)."""
    resources = map_diff(a.resources, b.resources)
    return {
        "params": map_diff(a.params, b.params),
        "inputs": diff_inputs(a, b),
        "environment": diff_environment(a, b),
        "code": diff_code(a, b),
        "base": diff_base(a, b),
        **({RESOURCES: resources} if _changed(resources) else {}),
        "metrics": diff_metrics(a, b),
    }


def run_facts(record: Mapping[str, Any] | None) -> RunFacts:
    """The comparable facts of a run from the `RUN` query's record (None: an absent run)."""
    if record is None:
        return RunFacts(None)
    run = record["run"]
    inputs: dict[str, list[str]] = {}
    for used in record["inputs"]:
        inputs.setdefault(used["role"] or "", []).append(used["id"])
    env = record["environments"][0] if record["environments"] else {}
    bases = record["bases"]
    base = None
    if bases:
        first = bases[0]
        base = Base(first["props"]["id"], first["type"], (first["runs"] or [None])[0])
    # A resume from the run's own checkpoint continues it after an interruption: not a cause.
    resumes = record["resumes"]
    foreign = [r for r in resumes if not _own_checkpoint(run["id"], r["props"]["id"])]
    return RunFacts(
        id=run["id"],
        params=flatten(decode_json(run, PARAMS) or {}),
        inputs={role: tuple(sorted(ids)) for role, ids in inputs.items()},
        environment=env.get("id"),
        env_contents=contents(env),
        code=record_of(run, "code"),
        base=base,
        resumed_from=tuple(r["props"]["id"] for r in resumes),
        resumed_steps=tuple(r["props"].get("step") for r in foreign),
        metrics=decode_json(run, "final_metrics") or {},
        resources=resources_of(run),
    )


def _own_checkpoint(run: str, checkpoint: str) -> bool:
    """Whether `checkpoint` (`checkpoint:<run key>/<step>`) was saved by `run` (`run:<key>`)."""
    key = run.removeprefix("run:")
    return checkpoint.startswith(f"checkpoint:{key}/")
