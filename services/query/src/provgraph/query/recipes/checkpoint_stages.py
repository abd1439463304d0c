"""`checkpoints RUN`: a run's checkpoints compared stage by stage (pure, over `CheckpointReads`).

`checkpoints`: each checkpoint, in step order, with its step, when it was saved and the
metrics saved with it (`checkpoint.saved` `metrics`). `results`: one row per evaluation of a
checkpoint (`checkpoint.evaluated`: suite, evaluation set, passed) and metric, in step order,
each with its change from the previous
checkpoint that has a value of that metric on the same *evaluation set* (the dataset versions,
suite and suite version, as `best` reads them: `recipes/best_model.EvalSet`); values of two sets
are never compared. A checkpoint evaluated twice on one set counts with its latest evaluation
as the previous value of the next checkpoint (a re-evaluation replaces the earlier one).

The run's project's metric aliases are honoured as `best` honours them
(`recipes/metric_aliases.py`): a metric recorded under a declared alias is read under its
canonical name (a record holding both keeps the canonical one's value), and `--metric` may name
either.

The run's checkpoints are read up to a bound (`QuerySettings.checkpoint_stages_max`): the
latest steps are kept, `truncated` says when earlier ones were left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.ids import checked_id
from provgraph.query.read.checkpoint_reads import (
    CheckpointEvaluation,
    CheckpointReads,
    RunCheckpoints,
    SavedCheckpoint,
)
from provgraph.query.read.convention_reads import ConventionReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes.best_model import EvalSet, is_number
from provgraph.query.recipes.metric_aliases import Aliases, ProjectAliases, canonical_name
from provgraph.query.recipes.plain_table import cell, table
from provgraph.schemas import IdKind, parse_id

Previous = dict[tuple[EvalSet, str], tuple[SavedCheckpoint, Any]]
"""Per (evaluation set, metric), the latest checkpoint so far with a value, and that value."""


def set_of(evaluation: CheckpointEvaluation) -> EvalSet:
    """The evaluation set of `evaluation`."""
    return EvalSet(evaluation.datasets, evaluation.suite, evaluation.suite_version)


def change(value: Any, before: Any) -> float | None:
    """`value - before` when both are numbers (rounded against float noise), else None."""
    if not (is_number(value) and is_number(before)):
        return None
    return round(float(value) - float(before), 12)


def _kept(metrics: Mapping[str, Any], metric: str | None) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if metric is None or k == metric}


def _result(
    checkpoint: SavedCheckpoint,
    evaluation: CheckpointEvaluation,
    name: str | None,
    value: Any,
    before: tuple[SavedCheckpoint, Any] | None,
) -> dict[str, Any]:
    return {
        "checkpoint": checkpoint.id,
        "step": checkpoint.step,
        "evaluation": evaluation.id,
        "suite": evaluation.suite,
        "suite_version": evaluation.suite_version,
        "evaluation_set": list(evaluation.datasets),
        "passed": evaluation.passed,
        "evaluated_at": evaluation.evaluated_at,
        "metric": name,
        "value": value,
        "previous_checkpoint": before[0].id if before else None,
        "previous_step": before[0].step if before else None,
        "previous_value": before[1] if before else None,
        "change": change(value, before[1]) if before else None,
    }


def _results(
    checkpoint: SavedCheckpoint, previous: Previous, metric: str | None
) -> list[dict[str, Any]]:
    """One row per evaluation and metric of `checkpoint` (an evaluation without metrics has one
    row without a metric, unless a metric was asked for)."""
    rows = []
    for e in checkpoint.evaluations:
        kept = _kept(e.metrics, metric)
        if not kept and metric is None:
            rows.append(_result(checkpoint, e, None, None, None))
        for name, value in kept.items():
            rows.append(_result(checkpoint, e, name, value, previous.get((set_of(e), name))))
    # Only now, so that the checkpoint's own evaluations compare with earlier checkpoints.
    for e in checkpoint.evaluations:  # the earliest first: the latest on a set stays
        for name, value in _kept(e.metrics, metric).items():
            previous[(set_of(e), name)] = (checkpoint, value)
    return rows


def _stage(checkpoint: SavedCheckpoint, metric: str | None) -> dict[str, Any]:
    return {
        "id": checkpoint.id,
        "step": checkpoint.step,
        "saved_at": checkpoint.saved_at,
        "status": checkpoint.status,
        "metrics": [{"name": k, "value": v} for k, v in _kept(checkpoint.metrics, metric).items()],
        "evaluations": len(checkpoint.evaluations),
    }


def recorded_metrics(found: RunCheckpoints) -> list[str]:
    """Every metric name saved with or evaluated on the run's checkpoints, sorted."""
    names = {n for c in found.checkpoints for n in c.metrics}
    names |= {n for c in found.checkpoints for e in c.evaluations for n in e.metrics}
    return sorted(names)


def stages_answer(found: RunCheckpoints, metric: str | None, limit: int) -> dict[str, Any]:
    """The answer of `checkpoints` for the run's checkpoints `found` (read with `limit`)."""
    if metric is not None and found.checkpoints and metric not in recorded_metrics(found):
        known = ", ".join(recorded_metrics(found)) or "none"
        raise InvalidArgumentError(
            f"metric {metric!r} is recorded on none of {found.run}'s checkpoints "
            f"(recorded: {known})",
            argument="metric",
        )
    previous: Previous = {}
    return {
        "run": found.run,
        "metric": metric,
        "total": found.total,
        "limit": limit,
        "truncated": found.total > len(found.checkpoints),
        "checkpoints": [_stage(c, metric) for c in found.checkpoints],
        "results": [r for c in found.checkpoints for r in _results(c, previous, metric)],
    }


def _canonical(metrics: Mapping[str, Any], aliases: Aliases) -> dict[str, Any]:
    """`metrics` under their canonical names; a canonical name recorded too keeps its value."""
    out = {aliases.get(k, k): v for k, v in metrics.items() if k in aliases}
    out.update({k: v for k, v in metrics.items() if k not in aliases})
    return dict(sorted(out.items()))


def with_aliases(found: RunCheckpoints, aliases: Aliases) -> RunCheckpoints:
    """The run's checkpoints with every metric (saved and evaluated) under its canonical name."""
    if not aliases:
        return found
    checkpoints = tuple(
        replace(
            c,
            metrics=_canonical(c.metrics, aliases),
            evaluations=tuple(
                replace(e, metrics=_canonical(e.metrics, aliases)) for e in c.evaluations
            ),
        )
        for c in found.checkpoints
    )
    return replace(found, checkpoints=checkpoints)


def _checked_run(run: str) -> str:
    kind = parse_id(checked_id("run", run)).kind
    if kind is not IdKind.RUN:
        raise InvalidArgumentError(f"checkpoints takes a run id, not a {kind} id", argument="run")
    return run


class CheckpointStages:
    """`checkpoints` over `CheckpointReads`, reading at most `limit` checkpoints of a run, with
    the run's project's metric aliases (`ConventionReads`, when given)."""

    def __init__(
        self, reads: CheckpointReads, limit: int, conventions: ConventionReads | None = None
    ) -> None:
        self._reads, self._limit, self._conventions = reads, limit, conventions

    def stages(self, run: str, scope: Scope, metric: str | None = None) -> dict[str, Any]:
        """The run's checkpoints stage by stage; `not_found` when the run is missing, deleted
        or not readable; `invalid_argument` for a metric none of them records."""
        found = self._reads.run_checkpoints(_checked_run(run), scope, self._limit)
        if found is None:
            raise NotFoundError(f"Not found: {run}.")
        aliases = ProjectAliases(self._conventions, scope).of(found.project)
        wanted = None if metric is None else canonical_name(metric, aliases)
        return stages_answer(with_aliases(found, aliases), wanted, self._limit)


# ---- text ------------------------------------------------------------------------------------


def _value(row: Mapping[str, Any]) -> str:
    if row["change"] is None:
        return cell(row["value"])
    sign = "+" if row["change"] >= 0 else ""
    return f"{cell(row['value'])} ({sign}{cell(row['change'])} since step {row['previous_step']})"


def _row(r: Mapping[str, Any]) -> Sequence[Any]:
    data = ", ".join(r["evaluation_set"]) or "(no dataset recorded)"
    suite = f"{r['suite']}@{r['suite_version']}" if r["suite_version"] else r["suite"]
    return (r["step"], suite, data, r["metric"], _value(r), r["passed"])


def render_stages(answer: Mapping[str, Any]) -> str:
    """`provgraph checkpoints` without `--json`."""
    stages = answer["checkpoints"]
    shown = f"{len(stages)} of {answer['total']}" if answer["truncated"] else f"{len(stages)}"
    lines = [f"{answer['run']}: {shown} checkpoints, in step order"]
    if answer["truncated"]:
        lines.append(f"(the latest {answer['limit']} steps; earlier checkpoints left out)")
    for s in stages:
        saved = ", ".join(f"{m['name']} {cell(m['value'])}" for m in s["metrics"]) or "-"
        lines.append(f"step {cell(s['step'])}  {s['id']}  saved {cell(s['saved_at'])}  {saved}")
    rows = [_row(r) for r in answer["results"]]
    if rows:
        header = ("step", "suite", "evaluation set", "metric", "value (change)", "passed")
        lines += ["", table(header, rows)]
    else:
        lines.append("no checkpoint evaluation recorded")
    return "\n".join(lines)
