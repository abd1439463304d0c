"""`scaleUp`: a run beside the pilot it scales up (`recipes/scale_up.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.compare import SettingChange, SettingKind
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long, field


@strawberry.type(description="One side of a scale-up: the pilot or the scale-up itself.")
class ScaleUpRun:
    id: strawberry.ID
    name: str | None
    experiment: strawberry.ID | None
    run_number: Long | None
    status: str | None
    resources: JSON = strawberry.field(
        description="num_nodes, devices_per_node, accelerator, parallelism.<degree>: as recorded."
    )
    accelerators: int | None = strawberry.field(
        description="num_nodes (1 when absent) x devices_per_node; null without devices."
    )


@strawberry.type(description="The scale: the accelerators' ratio and each resource that differs.")
class ScaleFactor:
    factor: float | None = strawberry.field(
        description="Scale-up accelerators / pilot accelerators; null unless both are known."
    )
    changes: list[SettingChange]


@strawberry.type(description="A logged point: step and value.")
class TrendPoint:
    step: Long
    value: float


@strawberry.type(description="A run's trend over the shared steps: first to last point there.")
class RunTrend:
    first: TrendPoint
    last: TrendPoint
    change: float = strawberry.field(description="last - first.")
    direction: str = strawberry.field(description="down | up | flat")
    slope_per_1k_steps: float | None


@strawberry.type(description="One run's side of a metric: its last logged point and its trend.")
class MetricSide:
    final: TrendPoint
    trend: RunTrend | None = strawberry.field(
        description="Null with fewer than two points in the shared steps."
    )


@strawberry.type(description="The steps both runs logged a metric over.")
class SharedSteps:
    start: Long = strawberry.field(description="The later of the two first logged steps.")
    end: Long = strawberry.field(description="The earlier of the two last logged steps.")


@strawberry.type(description="Whether the pilot's trend held at scale, for one metric.")
class MetricTrend:
    name: str
    pilot: MetricSide
    scale_up: MetricSide
    shared_steps: SharedSteps | None
    verdict: str = strawberry.field(description="held | weaker | reversed | unknown")
    why: str


@strawberry.type(description="A scale-up beside the pilot it names (`scaled_from`).")
class ScaleUp:
    run: strawberry.ID
    pilot: ScaleUpRun
    scale_up: ScaleUpRun
    scale: ScaleFactor
    other_changes: list[SettingChange] = strawberry.field(
        description="Every other setting that differs (params, inputs, environment, code, base)."
    )
    flagged: bool = strawberry.field(description="A setting other than the scale differs.")
    flag: str | None
    unverifiable: list[str]
    metrics: list[MetricTrend] = strawberry.field(description="Each metric both runs logged.")
    trend_held: str = strawberry.field(description="held | not held | unknown")


def _change(c: Mapping[str, Any]) -> SettingChange:
    kind = SettingKind(c["kind"])
    return SettingChange(kind=kind, name=c["name"], before=c["before"], after=c["after"])


def _point(p: Mapping[str, Any]) -> TrendPoint:
    return TrendPoint(step=p["step"], value=p["value"])


def _trend(t: Mapping[str, Any] | None) -> RunTrend | None:
    if t is None:
        return None
    rest = {k: v for k, v in t.items() if k not in ("first", "last")}
    return RunTrend(first=_point(t["first"]), last=_point(t["last"]), **rest)


def _side(s: Mapping[str, Any]) -> MetricSide:
    return MetricSide(final=_point(s["final"]), trend=_trend(s["trend"]))


def _metric(m: Mapping[str, Any]) -> MetricTrend:
    shared = m["shared_steps"]
    return MetricTrend(
        name=m["name"],
        pilot=_side(m["pilot"]),
        scale_up=_side(m["scale_up"]),
        shared_steps=None if shared is None else SharedSteps(**shared),
        verdict=m["verdict"],
        why=m["why"],
    )


def scale_up_answer(answer: Mapping[str, Any]) -> ScaleUp:
    """The typed answer of `ScaleUps.scale_up`."""
    return ScaleUp(
        run=answer["run"],
        pilot=ScaleUpRun(**answer["pilot"]),
        scale_up=ScaleUpRun(**answer["scale_up"]),
        scale=ScaleFactor(
            factor=answer["scale"]["factor"],
            changes=[_change(c) for c in answer["scale"]["changes"]],
        ),
        other_changes=[_change(c) for c in answer["other_changes"]],
        flagged=answer["flagged"],
        flag=answer["flag"],
        unverifiable=answer["unverifiable"],
        metrics=[_metric(m) for m in answer["metrics"]],
        trend_held=answer["trend_held"],
    )


@strawberry.type
class ScaleUpQuery:
    @field(
        description="A run beside the pilot it scales up (its `scaled_from`): the resources of "
        "each and the scale factor (accelerators = num_nodes x devices_per_node), every other "
        "setting that differs (flagged: a scale-up should change only the scale), and, for "
        "each metric both logged, whether the pilot's trend held over the steps they share. "
        "`invalid_argument` for a run that names no pilot."
    )
    def scale_up(self, info: Info, run: strawberry.ID) -> ScaleUp:
        ctx = info.context
        service = ctx.services.scale_ups()
        return scale_up_answer(service.scale_up(str(run), ctx.scope))
