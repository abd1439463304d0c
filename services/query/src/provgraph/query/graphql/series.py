"""`Run.metricSeries`: the metrics a run logged, step by step, downsampled.

Every run of an answer is read in one batch (`read/series_reads.py`).
"""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long
from provgraph.query.graphql.node import Node
from provgraph.query.read.series_reads import MetricSeriesView
from provgraph.schemas.storage import SERIES_BUCKETS_PER_OCTAVE


@strawberry.type(description="A logged value of a metric at a step.")
class MetricPoint:
    step: Long
    value: float


@strawberry.type(description="One metric a run logged (`run.metrics.logged`), downsampled.")
class MetricSeries:
    name: str = strawberry.field(description="The metric's name as logged (`train/loss`).")
    points: list[MetricPoint] = strawberry.field(description="By step.")

    @classmethod
    def of(cls, view: MetricSeriesView) -> MetricSeries:
        return cls(
            name=view.name, points=[MetricPoint(step=Long(s), value=v) for s, v in view.points]
        )


_NAMES = "Only these metrics (default: every metric the run logged)."
_DESCRIPTION = (
    "The metrics this run logged, by name, each downsampled to a bounded series: the steps fall "
    f"into log-spaced buckets ({SERIES_BUCKETS_PER_OCTAVE} per doubling of the step) and each "
    "bucket keeps the point at its highest step (a re-logged step: the later event's value). "
    "Early steps are kept densely; every point logged stays in the event log."
)


async def _metric_series(
    root: strawberry.Parent[Node],
    info: Info,
    names: Annotated[list[str] | None, strawberry.argument(description=_NAMES)] = None,
) -> list[MetricSeries]:
    ctx = info.context
    reads, scope = ctx.readers.series, ctx.scope
    as_of, wanted = root.as_of, tuple(names) if names is not None else None

    def fetch(ids: list[str]) -> list[list[MetricSeriesView]]:
        return reads.series(ids, scope, names=wanted, as_of=as_of)

    key = ("metric_series", as_of, wanted)
    views = await ctx.loaders.batched(key, fetch).load(root.view.id)
    return [MetricSeries.of(view) for view in views]


def metric_series_field() -> Any:
    """The `metricSeries` field of a run: its logged metrics, step by step."""
    return strawberry.field(resolver=_metric_series, description=_DESCRIPTION)
