"""Projection of model, evaluation and deployment events."""

from __future__ import annotations

from provgraph.ingest.projection.base import Ctx, projects, status
from provgraph.ingest.projection.mutations import Mutation, Target
from provgraph.schemas import model_id
from provgraph.schemas.events.checkpoint import CheckpointEvaluated
from provgraph.schemas.events.deployment import (
    DeploymentCreated,
    DeploymentFeedbackRecorded,
    DeploymentRetired,
    DeploymentUpdated,
    ServedModel,
)
from provgraph.schemas.events.model import (
    ModelVersionEvaluated,
    ModelVersionRegistered,
    ModelVersionStatusChanged,
)
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import Value, dotted, encode_json, json_key, with_json

# Model version status moves forward only (see ALLOWED_TRANSITIONS in the contract): the
# highest rank wins. Rejected and delivered never both happen to one version.
MODEL_RANK = {"candidate": 1, "approved": 2, "delivered": 3, "rejected": 4, "retired": 5}
DEPLOYMENT_RANK = {"active": 1, "retired": 2}


@projects(ModelVersionRegistered)
def _model_version_registered(event: ModelVersionRegistered) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "name": p.name,
        "version": p.version,
        "uri": p.uri,
        "checksum": p.checksum,
        "fit_for": p.fit_for,
        "description": p.description,
    }
    if p.validation:
        checks = [v.model_dump(mode="json") for v in p.validation]
        props[json_key("validation")] = encode_json(checks)
        props["validation_passed"] = all(v.passed for v in p.validation)
    node = ctx.node(
        me,
        defining=True,
        props=props,
        mins={"registered_at": ctx.time},
        versioned=status(MODEL_RANK["candidate"], "candidate"),
    )
    # No event registers a model itself: its first version defines it.
    model = ctx.node(model_id(event.project, p.name), defining=True, props={"name": p.name})
    out: list[Mutation] = [node, model, ctx.edge(me, Rel.VERSION_OF, model.id)]
    out += ctx.linked(me, Rel.GENERATED_BY, p.produced_by_run)
    out += ctx.linked(me, Rel.EXPORTED_FROM, p.checkpoint)
    return out


@projects(ModelVersionEvaluated)
def _model_version_evaluated(event: ModelVersionEvaluated) -> list[Mutation]:
    return _evaluation(event, event.payload.model_version)


@projects(CheckpointEvaluated)
def _checkpoint_evaluated(event: CheckpointEvaluated) -> list[Mutation]:
    return _evaluation(event, event.payload.checkpoint)


def _evaluation(event: ModelVersionEvaluated | CheckpointEvaluated, target: str) -> list[Mutation]:
    """An Evaluation node, EVALUATED -> what it evaluated (a model version or a checkpoint),
    GENERATED_BY -> its run, USED (role eval) -> its dataset versions."""
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "suite": p.suite,
        "suite_version": p.suite_version,
        "passed": p.passed,
        **with_json("metrics", p.metrics, "metric"),
    }
    out: list[Mutation] = [
        ctx.node(me, defining=True, props=props, mins={"evaluated_at": ctx.time})
    ]
    out += ctx.linked(me, Rel.EVALUATED, target)
    out += ctx.linked(me, Rel.GENERATED_BY, p.run)
    for version in p.dataset_versions:
        out += ctx.linked(me, Rel.USED, version, role="eval")
    return out


@projects(ModelVersionStatusChanged)
def _model_status_changed(event: ModelVersionStatusChanged) -> list[Mutation]:
    ctx, p = Ctx(event), event.payload
    to = p.to_status.value
    node = ctx.node(
        event.subject,
        props={"status_reason": p.reason},
        maxs={dotted("status_at", to): ctx.time},
        versioned=status(MODEL_RANK[to], to),
    )
    return [node]


def _serves(ctx: Ctx, me: str, serves: tuple[ServedModel, ...]) -> list[Mutation]:
    targets = [Target(s.model_version, {"traffic_share": s.traffic_share}) for s in serves]
    out: list[Mutation] = [ctx.ref(s.model_version) for s in serves]
    return [*out, ctx.edge_set(me, Rel.SERVES, Label.MODEL_VERSION, targets)]


def _runtime(ctx: Ctx, me: str, environment: str | None) -> list[Mutation]:
    if environment is None:
        return []
    target = Target(environment)
    return [ctx.ref(environment), ctx.edge_set(me, Rel.RAN_IN, Label.ENVIRONMENT, [target])]


@projects(DeploymentCreated)
def _deployment_created(event: DeploymentCreated) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "name": p.name,
        "endpoint": p.endpoint,
        "environment": p.environment,
    }
    node = ctx.node(
        me,
        defining=True,
        props=props,
        mins={"created_at": ctx.time},
        versioned=status(DEPLOYMENT_RANK["active"], "active"),
    )
    return [node, *_serves(ctx, me, p.serves), *_runtime(ctx, me, p.runtime_environment)]


@projects(DeploymentUpdated)
def _deployment_updated(event: DeploymentUpdated) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "endpoint": p.endpoint,
        "environment": p.environment,
        "update_note": p.note,
    }
    out: list[Mutation] = [ctx.node(me, props=props, maxs={"updated_at": ctx.time})]
    if p.serves is not None:
        out += _serves(ctx, me, p.serves)
    return out + _runtime(ctx, me, p.runtime_environment)


@projects(DeploymentRetired)
def _deployment_retired(event: DeploymentRetired) -> list[Mutation]:
    ctx = Ctx(event)
    node = ctx.node(
        event.subject,
        props={"retire_reason": event.payload.reason},
        maxs={"retired_at": ctx.time},
        versioned=status(DEPLOYMENT_RANK["retired"], "retired"),
    )
    return [node]


@projects(DeploymentFeedbackRecorded)
def _deployment_feedback(event: DeploymentFeedbackRecorded) -> list[Mutation]:
    ctx, p = Ctx(event), event.payload
    incidents = [i.model_dump(mode="json", exclude_none=True) for i in p.incidents]
    # The latest feedback is kept on the node; the full series stays in the event log.
    props: dict[str, Value | None] = {
        "feedback_model_version": p.model_version,
        json_key("feedback_incidents"): encode_json(incidents) if incidents else None,
        **with_json("feedback_metrics", p.metrics, "feedback_metric"),
    }
    out: list[Mutation] = [
        ctx.node(event.subject, props=props, maxs={"last_feedback_at": ctx.time})
    ]
    if p.model_version is not None:
        out.append(ctx.ref(p.model_version))
    return out
