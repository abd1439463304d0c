"""`scale-up`: a run beside the pilot it scales up (pure, but for the two reads of `ScaleUps`).

The answer holds each run's resources and the scale factor (accelerators = num_nodes x
devices_per_node), every other setting that differs (`comparing.changes`: params, inputs,
environment, code, base), flagged since a scale-up should change only the scale, and whether
the pilot's metric trend held, metric by metric, for each metric both runs logged:

- the *shared steps* run from the later of the two first logged steps to the earlier of the two
  last ones; each run's *trend* there is its value at its last logged point in them minus its
  value at its first (`down`, `up`, or `flat`), and its *slope* that change per 1,000 steps;
- the pilot's direction says which way is better (a loss that went down: lower is better);
- the verdict: `held` when the scale-up moved the same way and its value at the end of the
  shared steps is as good as the pilot's or better; `weaker` when it moved the same way to a
  worse value; `reversed` when it moved the other way or not at all; `unknown` when the pilot
  has no direction there or either run has fewer than two points in the shared steps.

The overall verdict is `held` when every metric with a verdict held, `not held` when one did
not, `unknown` when none has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.read.scale_up_reads import ScaleUpReads
from provgraph.query.read.series_reads import MetricSeriesView, SeriesReads
from provgraph.query.recipes.checkpoint_advice import devices_of
from provgraph.query.recipes.comparing import RunRow, changes, row_of
from provgraph.query.recipes.plain_table import cell
from provgraph.query.recipes.resources import RESOURCES
from provgraph.schemas import IdKind, InvalidIdError, parse_id

HELD, WEAKER, REVERSED, UNKNOWN = "held", "weaker", "reversed", "unknown"
FLAG = "a scale-up should change only the scale"
Point = tuple[int, float]


@dataclass(frozen=True)
class Trend:
    """One run's trend over the shared steps: its first and last point there."""

    first: Point
    last: Point

    @property
    def change(self) -> float:
        return self.last[1] - self.first[1]

    @property
    def direction(self) -> str:
        return "down" if self.change < 0 else "up" if self.change > 0 else "flat"

    @property
    def slope(self) -> float | None:
        steps = self.last[0] - self.first[0]
        return _rounded(self.change * 1000 / steps) if steps else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "first": _point(self.first),
            "last": _point(self.last),
            "change": _rounded(self.change),
            "direction": self.direction,
            "slope_per_1k_steps": self.slope,
        }


def _rounded(value: float) -> float:
    return float(f"{value:.6g}")


def _point(point: Point) -> dict[str, Any]:
    return {"step": point[0], "value": point[1]}


def _within(points: Sequence[Point], low: int, high: int) -> list[Point]:
    return [p for p in points if low <= p[0] <= high]


def _verdict(pilot: Trend | None, scale_up: Trend | None) -> tuple[str, str]:
    """The verdict on one metric and why, in words."""
    if pilot is None or scale_up is None:
        return UNKNOWN, "fewer than two points in the shared steps"
    if pilot.direction == "flat":
        return UNKNOWN, "the pilot's value did not move over the shared steps"
    if scale_up.direction != pilot.direction:
        return REVERSED, f"the pilot went {pilot.direction}, the scale-up {scale_up.direction}"
    lower = pilot.direction == "down"
    mine, theirs = scale_up.last[1], pilot.last[1]
    better = mine <= theirs if lower else mine >= theirs
    goal = "lower" if lower else "higher"
    if better:
        return HELD, f"both went {pilot.direction}; as good or better at the end ({goal} is better)"
    return WEAKER, f"both went {pilot.direction}; worse at the end ({goal} is better)"


def metric_trend(name: str, pilot: Sequence[Point], scale_up: Sequence[Point]) -> dict[str, Any]:
    """The trend of one metric both runs logged (points by step), and its verdict."""
    low = max(pilot[0][0], scale_up[0][0])
    high = min(pilot[-1][0], scale_up[-1][0])
    shared_p, shared_s = _within(pilot, low, high), _within(scale_up, low, high)
    trend_p = Trend(shared_p[0], shared_p[-1]) if len(shared_p) > 1 else None
    trend_s = Trend(shared_s[0], shared_s[-1]) if len(shared_s) > 1 else None
    verdict, why = _verdict(trend_p, trend_s)
    return {
        "name": name,
        "pilot": {"final": _point(pilot[-1]), "trend": trend_p and trend_p.as_dict()},
        "scale_up": {"final": _point(scale_up[-1]), "trend": trend_s and trend_s.as_dict()},
        "shared_steps": {"start": low, "end": high} if low <= high else None,
        "verdict": verdict,
        "why": why,
    }


def trends(
    pilot: Sequence[MetricSeriesView], scale_up: Sequence[MetricSeriesView]
) -> list[dict[str, Any]]:
    """One trend per metric both runs logged, by name."""
    theirs = {s.name: s.points for s in pilot if s.points}
    mine = {s.name: s.points for s in scale_up if s.points}
    return [metric_trend(n, theirs[n], mine[n]) for n in sorted(theirs.keys() & mine.keys())]


def overall(metrics: Sequence[Mapping[str, Any]]) -> str:
    """`held`, `not held` or `unknown` over the metrics' verdicts."""
    known = [m["verdict"] for m in metrics if m["verdict"] != UNKNOWN]
    if not known:
        return UNKNOWN
    return HELD if all(v == HELD for v in known) else "not held"


def side(row: RunRow) -> dict[str, Any]:
    """One run of the answer: who it is, its resources and its accelerators."""
    props = row.props
    return {
        "id": row.id,
        "name": props.get("name"),
        "experiment": row.experiment,
        "run_number": row.number,
        "status": props.get("status"),
        "resources": dict(row.resources),
        "accelerators": devices_of(row.resources),
    }


def scale(pilot: RunRow, scale_up: RunRow) -> dict[str, Any]:
    """The accelerators of each, their ratio and each resource that differs."""
    a, b = devices_of(pilot.resources), devices_of(scale_up.resources)
    found, _ = changes(pilot, scale_up)
    return {
        "factor": _rounded(b / a) if a and b else None,
        "changes": [c.as_dict() for c in found if c.kind == RESOURCES],
    }


def scale_up_answer(
    pilot: RunRow,
    scale_up: RunRow,
    pilot_series: Sequence[MetricSeriesView],
    series: Sequence[MetricSeriesView],
) -> dict[str, Any]:
    """The whole answer for a scale-up and its pilot."""
    found, unverifiable = changes(pilot, scale_up)
    others = [c.as_dict() for c in found if c.kind != RESOURCES]
    metrics = trends(pilot_series, series)
    return {
        "run": scale_up.id,
        "pilot": side(pilot),
        "scale_up": side(scale_up),
        "scale": scale(pilot, scale_up),
        "other_changes": others,
        "flagged": bool(others),
        "flag": f"{FLAG}: {len(others)} other setting(s) differ" if others else None,
        "unverifiable": unverifiable,
        "metrics": metrics,
        "trend_held": overall(metrics),
    }


def _checked_run(run: str) -> str:
    try:
        kind = parse_id(run).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"run: {exc}", argument="run") from None
    if kind is not IdKind.RUN:
        raise InvalidArgumentError(f"scale-up takes a run id, not a {kind} id", argument="run")
    return run


class ScaleUps:
    """`scale-up` over the pair's read (`ScaleUpReads`) and the runs' series (`SeriesReads`)."""

    def __init__(self, reads: ScaleUpReads, series: SeriesReads) -> None:
        self._reads, self._series = reads, series

    def scale_up(self, run: str, scope: Scope) -> dict[str, Any]:
        """`run` beside its pilot; `not_found` when either is missing or not readable,
        `invalid_argument` when the run names no pilot."""
        pair = self._reads.scale_up_pair(_checked_run(run), scope)
        if pair is None:
            raise NotFoundError(f"Not found: {run}.")
        if pair.pilot_id is None:
            raise InvalidArgumentError(
                f"{run} is not a scale-up: its run.started names no pilot (scaled_from)",
                argument="run",
            )
        if pair.pilot is None:
            raise NotFoundError(
                f"Not found: {pair.pilot_id}, the pilot {run} scales up "
                "(never started in the log, deleted, or not readable)."
            )
        pilot, mine = row_of(pair.pilot), row_of(pair.run)
        pilot_series, series = self._series.series([pilot.id, mine.id], scope)
        return scale_up_answer(pilot, mine, pilot_series, series)


# ---- text ------------------------------------------------------------------------------------


def _resources_text(view: Mapping[str, Any]) -> str:
    res = view["resources"]
    if not res:
        return "no resources recorded"
    head = f"{cell(res.get('num_nodes'))} x {cell(res.get('devices_per_node'))}"
    head += f" {res['accelerator']}" if res.get("accelerator") else ""
    parallel = ", ".join(
        f"{k.removeprefix('parallelism.')} {v}"
        for k, v in sorted(res.items())
        if k.startswith("parallelism.")
    )
    total = view["accelerators"]
    return (
        head + (f" = {total}" if total is not None else "") + (f" ({parallel})" if parallel else "")
    )


def _side_line(label: str, view: Mapping[str, Any]) -> str:
    name = f" {view['name']}" if view["name"] else ""
    return f"{label}: {view['id']}{name} [{view['status']}]: {_resources_text(view)}"


def _change_line(change: Mapping[str, Any]) -> str:
    return (
        f"  {change['kind']} {change['name']}: {cell(change['before'])} -> {cell(change['after'])}"
    )


def _metric_lines(metric: Mapping[str, Any]) -> list[str]:
    p, s = metric["pilot"], metric["scale_up"]
    final = (
        f"  {metric['name']}: pilot {cell(p['final']['value'])} at step {p['final']['step']}, "
        f"scale-up {cell(s['final']['value'])} at step {s['final']['step']}"
    )
    shared = metric["shared_steps"]
    lines = [final]
    if shared is not None and p["trend"] and s["trend"]:
        lines.append(
            f"    steps {shared['start']}-{shared['end']}: pilot {p['trend']['direction']} "
            f"{cell(p['trend']['change'])}, scale-up {s['trend']['direction']} "
            f"{cell(s['trend']['change'])}"
        )
    lines.append(f"    {metric['verdict'].upper()}: {metric['why']}")
    return lines


def render_scale_up(answer: Mapping[str, Any]) -> str:
    """`provgraph scale-up` without `--json`."""
    factor = answer["scale"]["factor"]
    lines = [
        _side_line("pilot   ", answer["pilot"]),
        _side_line("scale-up", answer["scale_up"]),
        f"scale: x{cell(factor)} accelerators" if factor is not None else "scale: unknown",
        *(_change_line(c) for c in answer["scale"]["changes"]),
    ]
    if answer["flagged"]:
        lines.append(f"FLAGGED, {answer['flag']}:")
        lines += [_change_line(c) for c in answer["other_changes"]]
    else:
        lines.append("no other setting differs")
    lines += [f"note: {u}" for u in answer["unverifiable"]]
    lines.append(f"metric trend: {answer['trend_held'].upper()}")
    for metric in answer["metrics"]:
        lines += _metric_lines(metric)
    if not answer["metrics"]:
        lines.append("  no metric logged by both runs")
    return "\n".join(lines)
