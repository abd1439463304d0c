"""`effects`: what worked, from every one-change pair of a project's experiments (pure).

Each run of an experiment is checked against the previous run by number, exactly as `compare`
checks it (`recipes/comparing.py`). A pair where exactly one setting differs is *counted*; a
flagged pair (more than one setting) never is, and a pair where nothing differs is a repeat.
Counted pairs are grouped by what changed: a parameter's old and new value (or, grouped by
factor, a numeric parameter's ratio: `batch_size: x0.5`), a step of an input's dataset version,
an environment, the code or the base. Each group reports its pairs, the mean and spread of the
metric's change (later run minus earlier run, over the pairs where both finished with a
value), and how many of the later runs failed, with their errors.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.compare_answer import find_metric, metric_defs
from provgraph.query.recipes.compare_table import change_text
from provgraph.query.recipes.comparing import (
    Change,
    MetricDef,
    RunRow,
    changes,
    comparison_runs,
    row_of,
)
from provgraph.query.recipes.plain_table import cell, table
from provgraph.schemas.storage import record_of

BY_VALUE, BY_FACTOR = "value", "factor"
GROUPINGS = (BY_VALUE, BY_FACTOR)
_UNFINISHED = ("running", None)


@dataclass(frozen=True)
class Pair:
    """A run and the run it is checked against, with what changed between them."""

    before: RunRow
    after: RunRow
    found: tuple[Change, ...]

    @property
    def started(self) -> str:
        return str(self.after.props.get("started_at") or "")


def _factor(change: Change) -> float | None:
    """after / before of a numeric parameter whose values have one sign and are not zero."""
    a, b = change.before, change.after
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if change.kind != "param" or not numbers or a * b <= 0:
        return None
    return float(f"{b / a:.4g}")


def _label(change: Change, factor: float | None) -> str:
    return (
        f"{change.name}: x{cell(factor)}" if factor is not None else change_text(change.as_dict())
    )


@dataclass
class _Group:
    change: Change
    factor: float | None
    pairs: list[Pair] = field(default_factory=list)

    def answer(self, metric: MetricDef) -> dict[str, Any]:
        rows = [_pair_view(p, metric) for p in self.pairs]
        deltas = [r["delta"] for r in rows if r["delta"] is not None]
        failed = [p.after for p in self.pairs if p.after.props.get("status") == "failed"]
        errors = Counter(_error_of(run) for run in failed)
        c = self.change
        return {
            "kind": c.kind,
            "name": c.name,
            "label": _label(c, self.factor),
            "before": None if self.factor is not None else c.before,
            "after": None if self.factor is not None else c.after,
            "factor": self.factor,
            "pairs": len(rows),
            "measured": len(deltas),
            "mean_delta": _rounded(statistics.fmean(deltas)) if deltas else None,
            "spread": _rounded(statistics.stdev(deltas)) if len(deltas) > 1 else None,
            "min_delta": min(deltas) if deltas else None,
            "max_delta": max(deltas) if deltas else None,
            "failed": len(failed),
            "running": sum(1 for p in self.pairs if p.after.props.get("status") in _UNFINISHED),
            "failures": [{"error": e, "count": n} for e, n in sorted(errors.items())],
            "runs": rows,
        }


def _rounded(value: float) -> float:
    """Without the noise of float arithmetic (1.02 - 1.1 is -0.08, not -0.08000000000000007)."""
    return float(f"{value:.12g}")


def _error_of(run: RunRow) -> str:
    """The failed run's error type, else its message, else `no error recorded`."""
    error = record_of(run.props, "error")
    return str(error.get("type") or error.get("message") or "no error recorded")


def _pair_view(pair: Pair, metric: MetricDef) -> dict[str, Any]:
    """One pair of a group; `delta` only when both runs finished with a value of the metric."""
    a, b = pair.before, pair.after
    finished = all(r.props.get("status") not in _UNFINISHED for r in (a, b))
    have = metric in a.metrics and metric in b.metrics
    delta = _rounded(b.metrics[metric][0] - a.metrics[metric][0]) if finished and have else None
    return {
        "experiment": b.experiment,
        "before": a.id,
        "after": b.id,
        "status": b.props.get("status"),
        "delta": delta,
        "started_at": b.props.get("started_at"),
    }


def checked_pairs(rows: Sequence[RunRow]) -> list[Pair]:
    """Every run of an experiment with the run `compare` checks it against (the previous run
    by number) and the settings that differ between them."""
    by_id = {row.id: row for row in rows}
    against = comparison_runs([r for r in rows if r.experiment is not None], None)
    out = []
    for run_id, previous in against.items():
        if previous is not None:
            before, after = by_id[previous], by_id[run_id]
            out.append(Pair(before, after, tuple(changes(before, after)[0])))
    return out


def _grouped(pairs: Sequence[Pair], by: str) -> list[_Group]:
    groups: dict[tuple[Any, ...], _Group] = {}
    for pair in pairs:
        (change,) = pair.found
        factor = _factor(change) if by == BY_FACTOR else None
        value = (factor,) if factor is not None else (repr(change.before), repr(change.after))
        key = (change.kind, change.name, *value)
        groups.setdefault(key, _Group(change, factor)).pairs.append(pair)
    return list(groups.values())


def effects(
    records: Sequence[Mapping[str, Any]],
    *,
    project: str,
    metric: str,
    since: str | None = None,
    group_by: str = BY_VALUE,
    truncated: bool = False,
) -> dict[str, Any]:
    """The effects table of a project's runs (`read.compare_reads.project_runs` records):
    groups with the most pairs first. `since` (a stored time) keeps the pairs whose later run
    started at or after it."""
    if group_by not in GROUPINGS:
        raise InvalidArgumentError(
            f"group by {group_by!r}: one of {', '.join(GROUPINGS)}", group_by=group_by
        )
    rows = [row_of(r) for r in records]
    defs = metric_defs(rows)
    chosen = find_metric(defs, metric, "metric")
    checked = [p for p in checked_pairs(rows) if since is None or p.started >= since]
    pairs = [p for p in checked if len(p.found) == 1]
    flagged = sum(1 for p in checked if len(p.found) > 1)
    repeats = sum(1 for p in checked if not p.found)
    answers = [g.answer(chosen) for g in _grouped(pairs, group_by)]
    for answer in answers:
        answer["runs"].sort(key=lambda r: (str(r["started_at"] or ""), r["after"]))
    answers.sort(key=lambda a: (-a["pairs"], a["kind"], a["label"]))
    return {
        "project": project,
        "metric": chosen.as_dict(),
        "since": since,
        "group_by": group_by,
        "runs_read": len(rows),
        "truncated": truncated,
        "pairs": len(pairs),
        "flagged_pairs": flagged,
        "repeat_pairs": repeats,
        "effects": answers,
    }


def _delta_text(effect: Mapping[str, Any]) -> str | None:
    mean, spread = effect["mean_delta"], effect["spread"]
    if mean is None:
        return None
    return f"{mean:+.3g}" + ("" if spread is None else f" ± {spread:.2g}")


def _failures_text(effect: Mapping[str, Any]) -> str | None:
    if not effect["failed"]:
        return None
    errors = ", ".join(
        f["error"] if f["count"] == 1 else f"{f['error']} x{f['count']}" for f in effect["failures"]
    )
    return f"{effect['failed']} of {effect['pairs']}: {errors}"


def render_effects(answer: Mapping[str, Any]) -> str:
    """The table: one row per change, then what was left out and why."""
    metric = answer["metric"]["key"]
    title = f"{answer['project']}: effect on {metric} of one change at a time"
    if answer["since"]:
        title += f", pairs since {answer['since']}"
    if answer["truncated"]:
        title += f" (truncated: the latest {answer['runs_read']} runs were read)"
    header = ["change", "kind", "pairs", "measured", "mean Δ ± sd", "min Δ", "max Δ"]
    header += ["failed", "running"]
    rows = [
        [
            e["label"],
            e["kind"],
            e["pairs"],
            e["measured"],
            _delta_text(e),
            e["min_delta"],
            e["max_delta"],
            _failures_text(e),
            e["running"] or None,
        ]
        for e in answer["effects"]
    ]
    parts = [title, ""]
    parts.append(table(header, rows) if rows else "no one-change pair")
    left = (
        f"Counted: {answer['pairs']} pairs with exactly one change, of {answer['runs_read']} "
        f"runs. Left out: {answer['flagged_pairs']} flagged (more than one change), "
        f"{answer['repeat_pairs']} with nothing changed."
    )
    parts += ["", left, "Δ: the later run's value minus the earlier run's, both finished."]
    return "\n".join(parts)
