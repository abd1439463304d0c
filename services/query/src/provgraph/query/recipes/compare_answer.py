"""The answer of `compare`: columns, order and rows, from the runs' records (pure).

Which params are shown, which metric definitions are columns, the order of the rows (by number,
or by a metric with the gaps last) and each row as the answer holds it, with its check from
`recipes/comparing.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.comparing import (
    FINAL,
    LAST,
    MetricDef,
    RunRow,
    check,
    comparison_runs,
    row_of,
)
from provgraph.query.recipes.env_contents import image_ref
from provgraph.schemas.storage import record_of

_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def shown_params(rows: Sequence[RunRow], everything: bool) -> list[str]:
    """Every param name with `everything`, else those whose value is not the same in all."""
    names = sorted({name for row in rows for name in row.params})
    if everything:
        return names
    return [n for n in names if len({repr((n in r.params, r.params.get(n))) for r in rows}) > 1]


def metric_defs(rows: Iterable[RunRow]) -> list[MetricDef]:
    """Every metric definition any run has: final ones first, then last logged, by name."""
    return sorted({d for row in rows for d in row.metrics})


def find_metric(defs: Sequence[MetricDef], wanted: str, argument: str) -> MetricDef:
    """`<source>:<name>` or `<name>` (a final metric if one has the name, else the last logged
    value); `invalid_argument` naming `argument` and the known keys when no run has it."""
    by_key = {d.key: d for d in defs}
    found = by_key.get(wanted) or by_key.get(f"{FINAL}:{wanted}") or by_key.get(f"{LAST}:{wanted}")
    if found is None:
        known = ", ".join(d.key for d in defs) or "none"
        raise InvalidArgumentError(
            f"no run has the metric {wanted!r}; known: {known}", {argument: wanted}
        )
    return found


def sort_key(defs: Sequence[MetricDef], given: str) -> tuple[MetricDef, bool]:
    """`[-]<source>:<name>` or `[-]<name>` (`find_metric`) and whether descending (`-`)."""
    descending = given.startswith("-")
    return find_metric(defs, given[1:] if descending else given, "sort"), descending


def ordered(rows: Sequence[RunRow], by: tuple[MetricDef, bool] | None) -> list[RunRow]:
    """Rows by `RunRow.order`, or by one metric (runs without it last, in either direction)."""
    rows = sorted(rows, key=RunRow.order)
    if by is None:
        return rows
    metric, descending = by
    have = [r for r in rows if metric in r.metrics]
    have.sort(key=lambda r: r.metrics[metric][0], reverse=descending)
    return have + [r for r in rows if metric not in r.metrics]


def _duration(props: Mapping[str, Any]) -> float | None:
    start, end = props.get("started_at"), props.get("ended_at")
    if not isinstance(start, str) or not isinstance(end, str) or props.get("status") == "running":
        return None
    delta = datetime.strptime(end, _TIME).replace(tzinfo=UTC) - datetime.strptime(
        start, _TIME
    ).replace(tzinfo=UTC)
    return delta.total_seconds()


def _error(props: Mapping[str, Any]) -> dict[str, Any] | None:
    found = record_of(props, "error")
    if not found:
        return None
    return {"type": found.get("type"), "message": found.get("message")}


def _conclusion_missing(props: Mapping[str, Any]) -> bool:
    return props.get("status") in ("completed", "failed") and not props.get("conclusion")


def run_view(
    row: RunRow, params: Sequence[str], defs: Sequence[MetricDef], checked: dict[str, Any]
) -> dict[str, Any]:
    """One row of the answer."""
    p, env = row.props, row.environment
    return {
        "id": row.id,
        "number": row.number,
        "name": p.get("name"),
        "experiment": row.experiment,
        "status": p.get("status"),
        "error": _error(p),
        "conclusion": p.get("conclusion"),
        "conclusion_missing": _conclusion_missing(p),
        "abort_reason": p.get("abort_reason"),
        "params": [{"name": n, "value": row.params.get(n)} for n in params],
        "inputs": [{"role": role, "dataset_version": v} for role, v in row.inputs],
        "environment": None if env is None else {"id": env["id"], "image": image_ref(env)},
        "code": row.code or None,
        "base": None if row.base is None else {"id": row.base["id"], "type": row.base["type"]},
        "resumed_from": [dict(c) for c in row.resumes],
        "metrics": [_metric_cell(row, d) for d in defs],
        "started_at": p.get("started_at"),
        "ended_at": p.get("ended_at"),
        "duration_s": _duration(p),
        "check": checked,
        "data_gates": [dict(f) for f in row.data_gates],
    }


def _metric_cell(row: RunRow, metric: MetricDef) -> dict[str, Any]:
    value, step = row.metrics.get(metric, (None, None))
    return {"key": metric.key, "value": value, "step": step}


def compare_runs(
    records: Sequence[Mapping[str, Any]],
    *,
    experiment: str | None = None,
    everything: bool = False,
    baseline: str | None = None,
    sort_by: str | None = None,
    truncated: bool = False,
) -> dict[str, Any]:
    """The whole answer of `compare` from the runs' records."""
    rows = [row_of(r) for r in records]
    by_id = {row.id: row for row in rows}
    params, defs = shown_params(rows, everything), metric_defs(rows)
    by = sort_key(defs, sort_by) if sort_by else None
    basis = "baseline" if baseline else "previous"
    against = comparison_runs(rows, baseline)
    checks = {r.id: check(r, by_id.get(against[r.id] or ""), basis) for r in rows}
    shown = ordered(rows, by)
    return {
        "experiment": experiment,
        "basis": basis,
        "baseline": baseline,
        "sort_by": None if by is None else ("-" if by[1] else "") + by[0].key,
        "truncated": truncated,
        "params": params,
        "metrics": [d.as_dict() for d in defs],
        "runs": [run_view(r, params, defs, checks[r.id]) for r in shown],
        "flagged": [r.id for r in sorted(rows, key=RunRow.order) if checks[r.id]["flagged"]],
        "gates_flagged": [r.id for r in sorted(rows, key=RunRow.order) if r.data_gates],
    }
