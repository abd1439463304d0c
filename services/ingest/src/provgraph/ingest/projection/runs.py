"""Projection of experiment, run and checkpoint events."""

from __future__ import annotations

from collections.abc import Iterable

from provgraph.ingest.projection.base import Ctx, copied, projects, status
from provgraph.ingest.projection.mutations import Mutation, SeriesUpsert, Versioned
from provgraph.schemas import (
    CheckpointDeleted,
    CheckpointSaved,
    ExperimentCreated,
    RunAborted,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunResumed,
    RunStarted,
    run_id,
)
from provgraph.schemas.events.run import MetricPoint
from provgraph.schemas.graph import Rel
from provgraph.schemas.storage import (
    PARAM,
    PARAMS,
    SeriesPoint,
    Value,
    dotted,
    record,
    series_bucket,
    step_version,
    with_json,
)

# Run status moves forward only: the highest rank seen wins, whatever the arrival order.
# A run that failed, was resumed and then completed ends `completed`.
RUN_RANK = {"running": 1, "aborted": 2, "failed": 3, "completed": 4}
CHECKPOINT_RANK = {"available": 1, "files_deleted": 2}


@projects(ExperimentCreated)
def _experiment_created(event: ExperimentCreated) -> list[Mutation]:
    props = copied(event.payload, "key", "number", "code_name", "goal", "description", "tags")
    return [Ctx(event).node(event.subject, defining=True, props=props)]


def _started_props(event: RunStarted) -> dict[str, Value | None]:
    p = event.payload
    props: dict[str, Value | None] = {
        "run_key": p.run_id,
        "name": p.name,
        "run_number": p.run_number,
        **with_json(PARAMS, p.params, PARAM),
    }
    if p.code is not None:
        code = p.code.model_dump(mode="json", exclude_none=True)
        props.update(record("code", code))
    if p.resources is not None:
        resources = p.resources.model_dump(mode="json", exclude_none=True)
        props.update(with_json("resources", resources, "resources"))
    return props


@projects(RunStarted)
def _run_started(event: RunStarted) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    node = ctx.node(
        me,
        defining=True,
        props=_started_props(event),
        mins={"started_at": ctx.time},
        versioned=status(RUN_RANK["running"], "running"),
    )
    out: list[Mutation] = [node]
    out += ctx.linked(me, Rel.PART_OF, p.experiment)
    out += ctx.linked(me, Rel.RAN_IN, p.environment)
    out += ctx.linked(me, Rel.STARTED_FROM, p.base_model)
    out += ctx.linked(me, Rel.RESUMED_FROM, p.resumed_from)
    out += ctx.linked(me, Rel.SCALED_FROM, p.scaled_from)
    for used in p.inputs:
        out += ctx.linked(me, Rel.USED, used.dataset_version, role=used.role.value)
    return out


@projects(RunMetricsLogged)
def _metrics_logged(event: RunMetricsLogged) -> list[Mutation]:
    ctx, run = Ctx(event), event.subject
    # Per metric: a summary on the run (the value at the highest step), and the downsampled
    # series on a node of its own. Both are last-writer-wins by (step, event version), so any
    # order of the events gives the same graph.
    versioned: dict[str, Versioned] = {}
    series: list[Mutation] = []
    for name, buckets in sorted(_bucketed(event.payload.points).items()):
        last = buckets[max(buckets)]  # the highest bucket holds the highest step
        version = step_version(last.step, ctx.version)
        versioned[dotted("metric", name)] = Versioned(version, last.value)
        versioned[dotted("metric_step", name)] = Versioned(version, last.step)
        points = _series_points(buckets, ctx.version)
        series.append(SeriesUpsert(run, name, event.project, points))
    return [ctx.node(run, versioned=versioned), *series]


def _series_points(buckets: dict[int, MetricPoint], version: str) -> dict[int, SeriesPoint]:
    """The kept point of each bucket under its step version; the buckets are those
    `_bucketed` already computed, so no step is bucketed twice."""
    return {
        bucket: SeriesPoint(point.step, point.value, step_version(point.step, version))
        for bucket, point in buckets.items()
    }


def _bucketed(points: Iterable[MetricPoint]) -> dict[str, dict[int, MetricPoint]]:
    """Per metric name, per series bucket (`storage.series_bucket`), the point at the highest
    step. Within one event the version is the same, so the later point wins a tie."""
    kept: dict[str, dict[int, MetricPoint]] = {}
    for point in points:
        buckets = kept.setdefault(point.name, {})
        bucket = series_bucket(point.step)
        current = buckets.get(bucket)
        if current is None or point.step >= current.step:
            buckets[bucket] = point
    return kept


def _end_props(event: RunCompleted | RunFailed | RunAborted) -> dict[str, Value | None]:
    p = event.payload
    return {
        "conclusion": p.conclusion,
        "final_step": p.final_step,
        **with_json("final_metrics", p.final_metrics, "final_metric"),
    }


def _run_end(
    event: RunCompleted | RunFailed | RunAborted, state: str, extra: dict[str, Value | None]
) -> list[Mutation]:
    ctx = Ctx(event)
    node = ctx.node(
        event.subject,
        props={**_end_props(event), **extra},
        maxs={"ended_at": ctx.time},
        versioned=status(RUN_RANK[state], state),
    )
    return [node]


@projects(RunCompleted)
def _run_completed(event: RunCompleted) -> list[Mutation]:
    return _run_end(event, "completed", {})


@projects(RunFailed)
def _run_failed(event: RunFailed) -> list[Mutation]:
    error = event.payload.error
    fields = {"type": error.type, "message": error.message, "traceback": error.traceback}
    return _run_end(event, "failed", record("error", fields))


@projects(RunAborted)
def _run_aborted(event: RunAborted) -> list[Mutation]:
    return _run_end(event, "aborted", {"abort_reason": event.payload.reason})


@projects(RunResumed)
def _run_resumed(event: RunResumed) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "interruption_cause": p.interruption_cause,
        "steps_lost": p.steps_lost,
        "resumed_at_step": p.resumed_at_step,
    }
    out: list[Mutation] = [ctx.node(me, props=props, maxs={"resumed_at": ctx.time})]
    return out + ctx.linked(me, Rel.RESUMED_FROM, p.from_checkpoint)


@projects(CheckpointSaved)
def _checkpoint_saved(event: CheckpointSaved) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "run_key": p.run_id,
        "step": p.step,
        "epoch": p.epoch,
        "uri": p.uri,
        "checksum": p.checksum,
        "size_bytes": p.size_bytes,
        "format": p.format,
        "save_seconds": p.save_seconds,
        **with_json("metrics", p.metrics, "metric"),
    }
    node = ctx.node(
        me,
        defining=True,
        props=props,
        mins={"saved_at": ctx.time},
        versioned=status(CHECKPOINT_RANK["available"], "available"),
    )
    return [node, *ctx.linked(me, Rel.GENERATED_BY, run_id(p.run_id))]


@projects(CheckpointDeleted)
def _checkpoint_deleted(event: CheckpointDeleted) -> list[Mutation]:
    ctx = Ctx(event)
    node = ctx.node(
        event.subject,
        props={"files_deleted_reason": event.payload.reason},
        mins={"files_deleted_at": ctx.time},
        versioned=status(CHECKPOINT_RANK["files_deleted"], "files_deleted"),
    )
    return [node]
