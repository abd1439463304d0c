"""Experiments, runs, their checkpoints and the environments they ran in."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.fields import (
    Long,
    Props,
    as_bool,
    as_long,
    as_text,
    decoded,
    integer,
    number,
    record_text,
    stored,
    text,
)
from provgraph.query.graphql.node import DOWN, UP, Node, linked, neighbour, neighbours, register
from provgraph.query.graphql.refs import DatasetVersionRef, EvaluationRef, ModelVersionRef
from provgraph.query.graphql.series import MetricSeries, metric_series_field
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import PARAMS, decode_json, record_key


@register(Label.EXPERIMENT)
@strawberry.type(description="A numbered experiment grouping runs.")
class Experiment(Node):
    number: Long | None = integer(
        "number", "Unique within the project: as stated when free, else the next one."
    )
    number_claimed: Long | None = integer(
        "number_claimed", "The number stated when another experiment held it (renumbered)."
    )
    key: str | None = text("key")
    goal: str | None = text("goal")
    code_name: str | None = text("code_name")
    runs: list[Run] = neighbours(Rel.PART_OF, DOWN, Label.RUN)


@strawberry.type(description="The code a run executed.")
class CodeRef:
    repo: str | None
    commit: str | None
    dirty: bool | None

    @classmethod
    def of(cls, props: Props) -> CodeRef:
        return cls(
            repo=record_text(props, "code", "repo"),
            commit=record_text(props, "code", "commit"),
            dirty=as_bool(props.get(record_key("code", "dirty"))),
        )


@strawberry.type(description="Why a run failed.")
class RunError:
    type: str | None
    message: str | None
    traceback: str | None

    @classmethod
    def of(cls, props: Props) -> RunError | None:
        found = {k: record_text(props, "error", k) for k in ("type", "message", "traceback")}
        return None if found["type"] is None and found["message"] is None else cls(**found)


@strawberry.type(description="How many ways a run was split along one kind of parallelism.")
class ParallelismDegree:
    name: str = strawberry.field(description="The kind, e.g. `data`, `tensor`, `pipeline`.")
    degree: Long


@strawberry.type(description="The compute a run used, as its `run.started` event recorded it.")
class RunResources:
    num_nodes: Long | None = strawberry.field(description="Machines (hosts) the run used.")
    devices_per_node: Long | None = strawberry.field(description="Accelerators on each machine.")
    accelerator: str | None = strawberry.field(description="The accelerator type, e.g. `H100`.")
    parallelism: list[ParallelismDegree] = strawberry.field(description="By kind, sorted.")
    extra: JSON = strawberry.field(description="Anything else recorded: {name: value}.")

    @classmethod
    def of(cls, props: Props) -> RunResources | None:
        """The stored `resources` of a run; None when none were recorded (or unreadable)."""
        found = decode_json(props, "resources")
        if not isinstance(found, dict):
            return None
        degrees, extra = found.get("parallelism"), found.get("extra")
        return cls(
            num_nodes=as_long(found.get("num_nodes")),
            devices_per_node=as_long(found.get("devices_per_node")),
            accelerator=as_text(found.get("accelerator")),
            parallelism=_degrees(degrees if isinstance(degrees, dict) else {}),
            extra=JSON(extra if isinstance(extra, dict) else {}),
        )


def _degrees(by_kind: Props) -> list[ParallelismDegree]:
    return [
        ParallelismDegree(name=str(kind), degree=Long(degree))
        for kind, degree in sorted(by_kind.items())
        if isinstance(degree, int) and not isinstance(degree, bool)
    ]


@strawberry.type(description="A USED edge of a run: a dataset version in a role.")
class RunInput:
    role: str | None
    dataset_version: DatasetVersionRef


@register(Label.RUN)
@strawberry.type(description="One training or processing run, failed and resumed ones included.")
class Run(Node):
    name: str | None = text("name")
    run_number: Long | None = integer(
        "run_number",
        "Unique within the experiment (shared by the attempts of a resumed run): as stated "
        "when free, else the next one.",
    )
    run_number_claimed: Long | None = integer(
        "run_number_claimed", "The number stated when another run held it (renumbered)."
    )
    status: str | None = text("status", "running | aborted | failed | completed")
    started_at: str | None = text("started_at")
    ended_at: str | None = text("ended_at")
    params: JSON | None = decoded(PARAMS)
    final_metrics: JSON | None = decoded("final_metrics")
    final_step: Long | None = integer("final_step")
    conclusion: str | None = text("conclusion")
    interruption_cause: str | None = text("interruption_cause")
    resumed_at_step: Long | None = integer("resumed_at_step")
    abort_reason: str | None = text("abort_reason")
    code: CodeRef = stored(CodeRef.of)
    error: RunError | None = stored(RunError.of)
    resources: RunResources | None = stored(
        RunResources.of, "The compute it used (machines, accelerators, parallelism)."
    )
    metric_series: list[MetricSeries] = metric_series_field()
    experiment: Experiment | None = neighbour(Rel.PART_OF, UP, Label.EXPERIMENT)
    inputs: list[RunInput] = linked(
        Rel.USED,
        UP,
        Label.DATASET_VERSION,
        lambda edge, v: RunInput(role=edge.props.get("role"), dataset_version=v),
        "The dataset versions read, with their role (train...).",
    )
    environment: Environment | None = neighbour(Rel.RAN_IN, UP, Label.ENVIRONMENT)
    started_from: Node | None = neighbour(
        Rel.STARTED_FROM, UP, None, "The model version or checkpoint this run fine-tuned from."
    )
    resumed_from: list[Checkpoint] = neighbours(
        Rel.RESUMED_FROM,
        UP,
        Label.CHECKPOINT,
        "Checkpoints this run resumed from after interruptions.",
    )
    scaled_from: Run | None = neighbour(
        Rel.SCALED_FROM, UP, Label.RUN, "The pilot this run scales up (`scaleUp` compares them)."
    )
    scale_ups: list[Run] = neighbours(
        Rel.SCALED_FROM, DOWN, Label.RUN, "Runs that scale this one up (it is their pilot)."
    )
    checkpoints: list[Checkpoint] = neighbours(Rel.GENERATED_BY, DOWN, Label.CHECKPOINT)
    outputs: list[DatasetVersionRef] = neighbours(
        Rel.GENERATED_BY, DOWN, Label.DATASET_VERSION, "Dataset versions this run produced."
    )
    model_versions: list[ModelVersionRef] = neighbours(Rel.GENERATED_BY, DOWN, Label.MODEL_VERSION)


@register(Label.CHECKPOINT)
@strawberry.type(description="A checkpoint a run saved.")
class Checkpoint(Node):
    step: Long | None = integer("step")
    epoch: Long | None = integer("epoch")
    uri: str | None = text("uri")
    checksum: str | None = text("checksum")
    # Sizes pass 2^31 (GraphQL Int is 32-bit): a Float keeps them exact up to 2^53.
    size_bytes: float | None = number("size_bytes")
    save_seconds: float | None = number("save_seconds", "How long writing it took (seconds).")
    status: str | None = text("status", "available | files_deleted")
    metrics: JSON | None = decoded("metrics")
    run: Run | None = neighbour(Rel.GENERATED_BY, UP, Label.RUN)
    resumed_by: list[Run] = neighbours(
        Rel.RESUMED_FROM, DOWN, Label.RUN, "Runs that resumed from this checkpoint."
    )
    exported_as: list[ModelVersionRef] = neighbours(
        Rel.EXPORTED_FROM,
        DOWN,
        Label.MODEL_VERSION,
        "Model versions exported from this checkpoint.",
    )
    evaluations: list[EvaluationRef] = neighbours(
        Rel.EVALUATED,
        DOWN,
        Label.EVALUATION,
        "Its evaluations, registering no model version (`checkpoint.evaluated`).",
    )


@strawberry.type(description="A container image.")
class Image:
    name: str | None
    tag: str | None
    digest: str | None

    @classmethod
    def of(cls, props: Props) -> Image:
        return cls(**{k: record_text(props, "image", k) for k in ("name", "tag", "digest")})


@register(Label.ENVIRONMENT)
@strawberry.type(description="An environment snapshot or image version runs ran in.")
class Environment(Node):
    key: str | None = text("key")
    image: Image = stored(Image.of)
    python_version: str | None = text("python_version")
    packages: JSON | None = decoded("packages", "Installed packages: {name: version}.")
    frameworks: JSON | None = decoded("frameworks", "ML frameworks: {name: version}.")
    based_on: Environment | None = neighbour(Rel.BASED_ON, UP, Label.ENVIRONMENT)
    runs: list[Run] = neighbours(Rel.RAN_IN, DOWN, Label.RUN)
