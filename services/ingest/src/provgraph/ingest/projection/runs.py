"""Projection of experiment, run and checkpoint events."""

from __future__ import annotations

from provgraph.ingest.projection.base import Ctx, projects, status
from provgraph.ingest.projection.mutations import Mutation, Versioned
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
    Value,
    dotted,
    record,
    step_version,
    with_json,
)

# Run status moves forward only: the highest rank seen wins, whatever the arrival order.
# A run that failed, was resumed and then completed ends `completed`.
RUN_RANK = {"running": 1, "aborted": 2, "failed": 3, "completed": 4}
CHECKPOINT_RANK = {"available": 1, "files_deleted": 2}


@projects(ExperimentCreated)
def _experiment_created(event: ExperimentCreated) -> list[Mutation]:
    p = event.payload
    props: dict[str, Value | None] = {
        "key": p.key,
        "number": p.number,
        "code_name": p.code_name,
        "goal": p.goal,
        "description": p.description,
        "tags": p.tags,
    }
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
    for used in p.inputs:
        out += ctx.linked(me, Rel.USED, used.dataset_version, role=used.role.value)
    return out


@projects(RunMetricsLogged)
def _metrics_logged(event: RunMetricsLogged) -> list[Mutation]:
    ctx = Ctx(event)
    # Last value per metric = the highest (step, event version): a summary, not a series.
    # Within one event the version is the same, so the highest step wins (the later on ties).
    last: dict[str, MetricPoint] = {}
    for point in event.payload.points:
        current = last.get(point.name)
        if current is None or point.step >= current.step:
            last[point.name] = point
    versioned: dict[str, Versioned] = {}
    for name, point in last.items():
        version = step_version(point.step, ctx.version)
        versioned[dotted("metric", name)] = Versioned(version, point.value)
        versioned[dotted("metric_step", name)] = Versioned(version, point.step)
    return [ctx.node(event.subject, versioned=versioned)]


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
