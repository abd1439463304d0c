"""`cost`: what a model version or an experiment cost in accelerator time and storage.

A run's running time is cut into segments exactly as the checkpoint advice cuts it
(`recipes/checkpoint_advice.py`: from a start or a resume to the next end, an open segment to
the run's last recorded event). Accelerator-hours are hours x accelerators (num_nodes x
devices_per_node of the run's resources); a run without recorded resources counts in hours
only and is listed. Work lost to interruptions is, per interruption, the time since the
segment's last checkpoint (or its start) x accelerators. Checkpoint storage is the sum of the
sizes the checkpoints recorded.

An experiment's cost is its runs', split into completed runs, failed attempts (failed or
aborted) and runs still running. A model version's is its producing run's plus the failed
attempts of the same experiment that started before that run ended; with `include_base`, plus
a share of the model version it started from: that one's cost divided by the number of runs
that started from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.best_env_reads import BestEnvReads
from provgraph.query.read.cost_reads import CostReads
from provgraph.query.read.digest_reads import DigestReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes.best_model import (
    group_by_set,
    latest_per_version,
    matching_sets,
    model_of,
    ranking,
)
from provgraph.query.recipes.checkpoint_advice import devices_of, segments
from provgraph.query.recipes.plain_table import cell, table
from provgraph.query.recipes.team_service import MAX_CHECKPOINTS_PER_RUN
from provgraph.schemas import IdKind, InvalidIdError, parse_id

FAILED = ("failed", "aborted")
POINT = 0.01
"""A point of a metric: 0.01 of it (a percentage point of an accuracy or a rate)."""
ROLES = ("producing run", "completed", "failed attempt", "running")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def run_cost(run: Mapping[str, Any], role: str) -> dict[str, Any]:
    """One run's hours, accelerator-hours, work lost to interruptions and checkpoint bytes."""
    cut = segments(run)
    devices = devices_of(run.get("resources"))
    hours = cut.exposure_s / 3600
    lost_hours = sum(i.lost_s for i in cut.interruptions) / 3600
    saved = run.get("checkpoints") or ()
    sizes = [c["size_bytes"] for c in saved if isinstance(c.get("size_bytes"), int)]
    return {
        "id": run["id"],
        "name": run.get("name"),
        "status": run.get("status"),
        "role": role,
        "hours": _round(hours),
        "accelerators": devices,
        "accelerator_hours": None if devices is None else _round(hours * devices),
        "interruptions": len(cut.interruptions),
        "lost_hours": _round(lost_hours),
        "lost_accelerator_hours": None if devices is None else _round(lost_hours * devices),
        "checkpoint_bytes": sum(sizes),
        "checkpoints_without_size": len(saved) - len(sizes),
        "checkpoints_capped": len(saved) >= MAX_CHECKPOINTS_PER_RUN,
    }


def _sum(rows: Sequence[Mapping[str, Any]], key: str) -> float:
    return round(sum(r[key] or 0.0 for r in rows), 4)


def totals(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Hours and accelerator-hours by role, work lost and storage over `rows`."""
    by_role = {
        role: {
            "runs": len(mine),
            "hours": _sum(mine, "hours"),
            "accelerator_hours": _sum(mine, "accelerator_hours"),
        }
        for role in ROLES
        if (mine := [r for r in rows if r["role"] == role])
    }
    return {
        "hours": _sum(rows, "hours"),
        "accelerator_hours": _sum(rows, "accelerator_hours"),
        "by_role": by_role,
        "lost_hours": _sum(rows, "lost_hours"),
        "lost_accelerator_hours": _sum(rows, "lost_accelerator_hours"),
        "checkpoint_bytes": sum(r["checkpoint_bytes"] for r in rows),
        "runs_without_resources": [r["id"] for r in rows if r["accelerators"] is None],
    }


def _experiment_role(run: Mapping[str, Any]) -> str:
    status = run.get("status")
    return (
        "failed attempt" if status in FAILED else "running" if status == "running" else "completed"
    )


def _attempts(runs: Sequence[Mapping[str, Any]], producing: Mapping[str, Any]) -> list[Any]:
    """The failed or aborted runs that started before the producing run ended."""
    end = producing.get("ended_at") or producing.get("last_event_at") or ""
    return [
        r
        for r in runs
        if r["id"] != producing["id"]
        and r.get("status") in FAILED
        and str(r.get("started_at") or "") <= str(end)
    ]


def gain(
    version: str,
    metric: str,
    rows: Sequence[Mapping[str, Any]],
    accelerator_hours: float,
    *,
    datasets: Sequence[str] = (),
    suite: str | None = None,
    higher_is_better: bool = False,
) -> dict[str, Any]:
    """What `version` gained on `metric` over the best of the versions registered before it,
    on one evaluation set (as `best` chooses it), and the accelerator-hours per point gained."""
    groups = group_by_set(rows)
    chosen = matching_sets(groups, datasets, suite)
    out: dict[str, Any] = {
        "metric": metric,
        "higher_is_better": higher_is_better,
        "evaluation_set": None,
        "value": None,
        "previous_best": None,
        "gain": None,
        "accelerator_hours_per_point": None,
        "message": None,
    }
    if len(chosen) != 1:
        sets = "; ".join(s.label() for s in chosen or groups) or "none"
        out["message"] = (
            f"{metric!r} was recorded on several evaluation sets ({sets}): choose one with "
            "--dataset (and --suite)"
            if len(chosen) > 1
            else f"no evaluation set matches; recorded on: {sets}"
        )
        return out
    out["evaluation_set"] = chosen[0].as_dict()
    scored = latest_per_version(groups[chosen[0]])
    mine = next((v for v in scored if v.version == version), None)
    if mine is None:
        out["message"] = f"{version} has no evaluation of {metric!r} on this set"
        return out
    out["value"] = mine.value
    earlier = [v for v in scored if (v.registered_at, v.version) < (mine.registered_at, version)]
    ranked = ranking(earlier, higher_is_better)
    if not ranked:
        out["message"] = "the first version evaluated on this set: no earlier best to gain over"
        return out
    previous = ranked[0]
    gained = (mine.value - previous.value) * (1 if higher_is_better else -1)
    out["previous_best"] = {"version": previous.version, "value": previous.value}
    out["gain"] = round(gained, 12)
    if gained > 0:
        out["accelerator_hours_per_point"] = round(accelerator_hours / (gained / POINT), 4)
    else:
        out["message"] = "no gain over the previous best"
    return out


def _kind(target: str) -> IdKind:
    try:
        kind = parse_id(target).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"target: {exc}", argument="target") from None
    if kind not in (IdKind.MODEL_VERSION, IdKind.EXPERIMENT):
        raise InvalidArgumentError(
            f"cost takes a model version or an experiment id, not a {kind} id", argument="target"
        )
    return kind


class Costs:
    """`cost` over the checkpoint advice's runs (`DigestReads`) and a model version's origin
    (`CostReads`); at most `max_runs` runs of an experiment."""

    def __init__(
        self,
        runs: DigestReads,
        origins: CostReads,
        max_runs: int,
        evaluations: BestEnvReads | None = None,
    ) -> None:
        self._runs = runs
        self._origins = origins
        self._max_runs = max_runs
        self._evaluations = evaluations

    def cost(
        self,
        target: str,
        scope: Scope,
        *,
        include_base: bool = False,
        metric: str | None = None,
        datasets: Sequence[str] = (),
        suite: str | None = None,
        higher_is_better: bool = False,
    ) -> dict[str, Any]:
        """The cost of a model version or an experiment; `not_found` when it is missing. With
        `metric` (a model version only), the points gained over the previous best and the
        accelerator-hours per point (`gain`)."""
        kind = _kind(target)
        if metric is not None and kind is not IdKind.MODEL_VERSION:
            raise InvalidArgumentError(
                "metric: the gain per point is a model version's", argument="metric"
            )
        answer = self._cost(target, kind, scope, include_base)
        answer["gain"] = None
        if metric is not None:
            hours = (answer["with_base"] or answer["totals"])["accelerator_hours"]
            rows = self._evaluation_rows(target, metric, scope)
            answer["gain"] = gain(
                target,
                metric,
                rows,
                hours,
                datasets=datasets,
                suite=suite,
                higher_is_better=higher_is_better,
            )
        return answer

    def _evaluation_rows(self, version: str, metric: str, scope: Scope) -> list[Any]:
        if self._evaluations is None:
            raise InvalidArgumentError("metric: no evaluations to read here", argument="metric")
        rows = self._evaluations.evaluations(model_of(version, None), metric, 10_000, scope)
        return rows or []

    def _cost(self, target: str, kind: IdKind, scope: Scope, include_base: bool) -> dict[str, Any]:
        if kind is IdKind.EXPERIMENT:
            found = self._read("experiment", target, scope)
            rows = [run_cost(r, _experiment_role(r)) for r in found.runs]
            return self._answer(target, "experiment", None, target, rows, None, found.truncated)
        origin = self._origins.model_origin(target, scope)
        if origin is None:
            raise NotFoundError(f"Not found: {target}.", missing={"model_version": target})
        rows, truncated = self._model_rows(origin.run, origin.experiment, scope)
        base = None
        if include_base and origin.base is not None:
            base = self._base(origin.base, origin.base_users, scope)
        return self._answer(
            target, "model_version", origin.run, origin.experiment, rows, base, truncated
        )

    def _read(self, kind: str, target: str, scope: Scope) -> Any:
        found = self._runs.advice_runs(kind, target, self._max_runs, MAX_CHECKPOINTS_PER_RUN, scope)
        if not found.found:
            raise NotFoundError(f"Not found: {target}.", missing={kind: target})
        return found

    def _model_rows(
        self, run: str | None, experiment: str | None, scope: Scope
    ) -> tuple[list[dict[str, Any]], bool]:
        """The producing run and the failed attempts before it ended (none without a run)."""
        if run is None:
            return [], False
        found = self._read("experiment" if experiment else "run", experiment or run, scope)
        producing = next((r for r in found.runs if r["id"] == run), None)
        if producing is None:  # beyond the experiment's latest runs: read it alone
            producing = self._read("run", run, scope).runs[0]
        rows = [run_cost(producing, "producing run")]
        rows += [run_cost(r, "failed attempt") for r in _attempts(found.runs, producing)]
        return rows, found.truncated

    def _base(self, base: str, users: int, scope: Scope) -> dict[str, Any]:
        """The base model version's own cost (its producing run and failed attempts) and the
        share of it each of the `users` runs that started from it carries."""
        origin = self._origins.model_origin(base, scope)
        run = origin.run if origin is not None else None
        rows, _ = self._model_rows(run, origin.experiment if origin is not None else None, scope)
        whole = totals(rows)
        share = 1 / users if users else 0.0
        return {
            "model_version": base,
            "run": run,
            "accelerator_hours": whole["accelerator_hours"],
            "hours": whole["hours"],
            "users": users,
            "share": round(share, 6),
            "share_accelerator_hours": round(whole["accelerator_hours"] * share, 4),
            "share_hours": round(whole["hours"] * share, 4),
            "runs_without_resources": whole["runs_without_resources"],
        }

    @staticmethod
    def _answer(
        target: str,
        kind: str,
        run: str | None,
        experiment: str | None,
        rows: list[dict[str, Any]],
        base: dict[str, Any] | None,
        truncated: bool,
    ) -> dict[str, Any]:
        whole = totals(rows)
        with_base = dict(whole)
        if base is not None:
            with_base["accelerator_hours"] = round(
                whole["accelerator_hours"] + base["share_accelerator_hours"], 4
            )
            with_base["hours"] = round(whole["hours"] + base["share_hours"], 4)
        return {
            "target": target,
            "kind": kind,
            "run": run,
            "experiment": experiment,
            "runs": rows,
            "totals": whole,
            "base": base,
            "with_base": None
            if base is None
            else {k: with_base[k] for k in ("hours", "accelerator_hours")},
            "truncated": truncated,
        }


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{value:.3g} {unit}" if unit != "B" else f"{n} B"
        value /= 1000
    return f"{n} B"


def render_cost(answer: Mapping[str, Any]) -> str:
    """The runs as a table, then the totals by role, work lost, storage and the base's share."""
    head = f"cost of {answer['target']}"
    if answer["kind"] == "model_version":
        head += f" (made by {answer['run'] or 'no recorded run'})"
    if answer["truncated"]:
        head += " (truncated: the experiment's earliest runs are left out)"
    named = any(r["name"] for r in answer["runs"])
    header = ["run", *(["name"] if named else []), "status", "role", "hours", "accelerators"]
    header += ["acc-hours", "interruptions", "lost acc-hours", "checkpoints"]
    rows = [
        [
            r["id"],
            *([r["name"]] if named else []),
            r["status"],
            r["role"],
            r["hours"],
            r["accelerators"],
            r["accelerator_hours"],
            r["interruptions"],
            r["lost_accelerator_hours"],
            _size(r["checkpoint_bytes"]) if r["checkpoint_bytes"] else None,
        ]
        for r in answer["runs"]
    ]
    t = answer["totals"]
    lines = [head, "", table(header, rows) if rows else "no run recorded", ""]
    roles = ", ".join(
        f"{role} {cell(v['accelerator_hours'])} ({v['runs']} run{'' if v['runs'] == 1 else 's'})"
        for role, v in t["by_role"].items()
    )
    lines.append(
        f"accelerator-hours: {cell(t['accelerator_hours'])}" + (f": {roles}" if roles else "")
    )
    lines.append(
        f"lost to interruptions: {cell(t['lost_accelerator_hours'])} accelerator-hours "
        f"({cell(t['lost_hours'])} hours)"
    )
    lines.append(f"checkpoint storage: {_size(t['checkpoint_bytes'])}")
    if t["runs_without_resources"]:
        lines.append(
            "without recorded resources (hours only): " + ", ".join(t["runs_without_resources"])
        )
    base = answer["base"]
    if base is not None:
        unknown = len(base["runs_without_resources"])
        hours = f"{cell(base['hours'])} hours" + (
            f", {unknown} run{'' if unknown == 1 else 's'} without recorded resources"
            if unknown
            else ""
        )
        lines.append(
            f"base {base['model_version']}: {cell(base['accelerator_hours'])} accelerator-hours "
            f"({hours}), shared by {base['users']} run{'' if base['users'] == 1 else 's'}: "
            f"{cell(base['share_accelerator_hours'])}; "
            f"with it: {cell(answer['with_base']['accelerator_hours'])} accelerator-hours"
        )
    found = answer.get("gain")
    if found is not None:
        lines.append(_gain_line(found))
    return "\n".join(lines)


def _gain_line(found: Mapping[str, Any]) -> str:
    head = f"gain on {found['metric']}"
    if found["evaluation_set"] is not None:
        s = found["evaluation_set"]
        head += f" ({', '.join(s['datasets']) or 'no dataset'} [{s['suite'] or '?'}])"
    previous = found["previous_best"]
    if previous is None or found["gain"] is None:
        return f"{head}: {found['message']}"
    text = (
        f"{head}: {cell(found['value'])} against {cell(previous['value'])} "
        f"({previous['version']}), {cell(found['gain'] / POINT)} points"
    )
    per = found["accelerator_hours_per_point"]
    return text + (
        f", {cell(per)} accelerator-hours a point" if per is not None else f": {found['message']}"
    )
