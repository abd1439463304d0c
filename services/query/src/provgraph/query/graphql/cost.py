"""`cost`: accelerator-hours and storage of a model version or an experiment (`recipes/cost.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import strawberry

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long, field


@strawberry.type(description="What one run cost.")
class RunCost:
    id: strawberry.ID
    name: str | None
    status: str | None
    role: str = strawberry.field(description="producing run | completed | failed attempt | running")
    hours: float = strawberry.field(description="Running time: its segments, start to end.")
    accelerators: int | None = strawberry.field(
        description="num_nodes x devices_per_node; null without recorded resources."
    )
    accelerator_hours: float | None
    interruptions: int
    lost_hours: float = strawberry.field(
        description="Work lost to interruptions: since each segment's last checkpoint."
    )
    lost_accelerator_hours: float | None
    checkpoint_bytes: Long = strawberry.field(description="The sizes its checkpoints recorded.")
    checkpoints_without_size: int
    checkpoints_capped: bool = strawberry.field(
        description="The run has more checkpoints than were read (2,000): storage is a floor."
    )


@strawberry.type(description="Hours and accelerator-hours of the runs of one role.")
class RoleCost:
    role: str
    runs: int
    hours: float
    accelerator_hours: float


@strawberry.type(description="The sums over the runs.")
class CostTotals:
    hours: float
    accelerator_hours: float = strawberry.field(description="Runs with recorded resources.")
    by_role: list[RoleCost]
    lost_hours: float
    lost_accelerator_hours: float
    checkpoint_bytes: Long
    runs_without_resources: list[strawberry.ID]


@strawberry.type(description="The base model version's cost and the share of it carried here.")
class BaseShare:
    model_version: strawberry.ID
    run: strawberry.ID | None
    hours: float
    accelerator_hours: float
    users: int = strawberry.field(description="Live runs that started from it.")
    share: float = strawberry.field(description="1 / users.")
    share_hours: float
    share_accelerator_hours: float
    runs_without_resources: list[strawberry.ID] = strawberry.field(
        description="The base's runs counted in hours only."
    )


@strawberry.type(description="Hours with the base model version's share.")
class CostWithBase:
    hours: float
    accelerator_hours: float


@strawberry.type(description="A model version's value, and the version it displaced.")
class GainPrevious:
    version: strawberry.ID
    value: float


@strawberry.type(description="An evaluation set: dataset versions, suite and its version.")
class GainSet:
    datasets: list[strawberry.ID]
    suite: str | None
    suite_version: str | None


@strawberry.type(
    description="What a model version gained on a metric over the best of the versions "
    "registered before it, on one evaluation set, and the accelerator-hours per point (0.01)."
)
class CostGain:
    metric: str
    higher_is_better: bool
    evaluation_set: GainSet | None
    value: float | None
    previous_best: GainPrevious | None
    gain: float | None = strawberry.field(description="Better is positive.")
    accelerator_hours_per_point: float | None
    message: str | None = strawberry.field(description="Why there is no figure, if none.")


@strawberry.type(description="What a model version or an experiment cost.")
class Cost:
    target: strawberry.ID
    kind: str = strawberry.field(description="model_version | experiment")
    run: strawberry.ID | None = strawberry.field(description="A model version's producing run.")
    experiment: strawberry.ID | None
    runs: list[RunCost]
    totals: CostTotals
    base: BaseShare | None = strawberry.field(description="With `includeBase`, if any.")
    with_base: CostWithBase | None
    truncated: bool = strawberry.field(description="The experiment had more runs than read.")
    gain: CostGain | None = strawberry.field(description="With `metric`: the gain per point.")


def _gain(found: Mapping[str, Any] | None) -> CostGain | None:
    if found is None:
        return None
    s, previous = found["evaluation_set"], found["previous_best"]
    return CostGain(
        **{k: v for k, v in found.items() if k not in ("evaluation_set", "previous_best")},
        evaluation_set=None if s is None else GainSet(**s),
        previous_best=None if previous is None else GainPrevious(**previous),
    )


def cost_answer(answer: Mapping[str, Any]) -> Cost:
    """The typed answer of `Costs.cost`."""
    t = answer["totals"]
    base, with_base = answer["base"], answer["with_base"]
    return Cost(
        target=answer["target"],
        kind=answer["kind"],
        run=answer["run"],
        experiment=answer["experiment"],
        runs=[RunCost(**r) for r in answer["runs"]],
        totals=CostTotals(
            **{k: v for k, v in t.items() if k != "by_role"},
            by_role=[RoleCost(role=k, **v) for k, v in t["by_role"].items()],
        ),
        base=None if base is None else BaseShare(**base),
        with_base=None if with_base is None else CostWithBase(**with_base),
        truncated=answer["truncated"],
        gain=_gain(answer.get("gain")),
    )


@strawberry.type
class CostQuery:
    @field(
        description="What a model version or an experiment (`id`) cost: each run's hours, "
        "accelerator-hours (num_nodes x devices_per_node), interruptions and the work they lost "
        "(since the last checkpoint), checkpoint storage; a model version's producing run and "
        "the failed attempts of its experiment before it ended, an experiment's runs by "
        "outcome; with `includeBase`, the base model version's share (its cost over the runs "
        "that started from it); with `metric` (and `datasets`/`suite` choosing one evaluation "
        "set, as `bestModelVersion` does), the gain over the previous best and the "
        "accelerator-hours per point (0.01) gained."
    )
    def cost(
        self,
        info: Info,
        id: strawberry.ID,
        include_base: bool = False,
        metric: str | None = None,
        datasets: list[strawberry.ID] | None = None,
        suite: str | None = None,
        higher_is_better: bool = False,
    ) -> Cost:
        ctx = info.context
        answer = ctx.services.costs().cost(
            str(id),
            ctx.scope,
            include_base=include_base,
            metric=metric,
            datasets=[str(d) for d in datasets or ()],
            suite=suite,
            higher_is_better=higher_is_better,
        )
        return cost_answer(answer)
