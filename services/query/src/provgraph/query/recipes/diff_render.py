"""The `diff` answer as text: `provgraph diff` without `--json`, and `best`'s "what changed"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provgraph.query.recipes.env_contents import change_lines
from provgraph.query.recipes.version_steps import step_lines


def diff_lines(diff: Mapping[str, Any]) -> list[str]:
    """One line per level of the upstream chain, then the first level's changes (each
    changed element of the environment on a line of its own, below the snapshots)."""
    out = [f"  level {step['level']}: {step['summary']}" for step in diff.get("chain", [])]
    params = diff.get("params", {})
    for name, change in params.get("changed", {}).items():
        out.append(f"  param {name}: {change['a']} -> {change['b']}")
    for name, value in params.get("added", {}).items():
        out.append(f"  param {name}: added {value}")
    for name, value in params.get("removed", {}).items():
        out.append(f"  param {name}: removed (was {value})")
    for role, change in diff.get("inputs", {}).items():
        out.append(f"  input {role}: +{change['added']} -{change['removed']}")
    out += step_lines(diff.get("dataset_versions", []))
    out += _environment_lines(diff.get("environment", {}))
    code = diff.get("code", {})
    if code.get("changed"):
        out.append(f"  code: {code['a'].get('commit')} -> {code['b'].get('commit')}")
    out += _base_lines(diff.get("base", {}))
    out += _keyed_lines("resources", diff.get("resources", {}))
    return out


def _keyed_lines(kind: str, found: Mapping[str, Any]) -> list[str]:
    """One line per changed, added and removed key of a `map_diff`."""
    out = [f"  {kind} {k}: {c['a']} -> {c['b']}" for k, c in found.get("changed", {}).items()]
    out += [f"  {kind} {k}: added {v}" for k, v in found.get("added", {}).items()]
    return out + [f"  {kind} {k}: removed (was {v})" for k, v in found.get("removed", {}).items()]


def _environment_lines(env: Mapping[str, Any]) -> list[str]:
    if not env.get("changed"):
        return []
    return [
        f"  environment: {env.get('a')} -> {env.get('b')}",
        *(f"    {line}" for line in change_lines(env.get("changes", []))),
    ]


def _base_lines(base: Mapping[str, Any]) -> list[str]:
    if not base.get("changed"):
        return []
    started, resumed = base["started_from"], base["resumed_from"]
    if started["a"] != started["b"]:
        return [f"  base: {started['a']} -> {started['b']}"]
    return [f"  resumed from: {resumed['a']} -> {resumed['b']}"]


def render_diff(answer: Mapping[str, Any]) -> str:
    """The two sides, what differs at each level and at the first, then the final metrics
    (outcomes, not causes) with their deltas."""
    runs = answer["runs"]
    lines = [f"{answer['a']} -> {answer['b']}"]
    if answer["kind"] == "model_version":
        lines.append(f"made by {runs['a']} -> {runs['b']}")
    lines += diff_lines(answer)
    for name, m in answer.get("metrics", {}).items():
        delta = f" ({m['delta']:+.6g})" if m["delta"] is not None else ""
        lines.append(f"  metric {name}: {m['a']} -> {m['b']}{delta}")
    return "\n".join(lines)
