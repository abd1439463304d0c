"""Experiments, runs, their checkpoints and the environments they ran in."""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.node import (
    Node,
    as_ref,
    decoded,
    field,
    flag,
    integer,
    one_of,
    register,
    related,
    related_of,
    text,
    to_node,
)
from provgraph.query.graphql.refs import DatasetVersionRef, ModelVersionRef
from provgraph.query.model import Direction
from provgraph.schemas.graph import Label, Rel

UP, DOWN = Direction.UPSTREAM, Direction.DOWNSTREAM


@register(Label.EXPERIMENT)
@strawberry.type(description="A numbered experiment grouping runs.")
class Experiment(Node):
    @strawberry.field
    def number(self) -> int | None:
        return integer(self, "number")

    @strawberry.field
    def key(self) -> str | None:
        return text(self, "key")

    @strawberry.field
    def goal(self) -> str | None:
        return text(self, "goal")

    @strawberry.field
    def code_name(self) -> str | None:
        return text(self, "code_name")

    @strawberry.field
    async def runs(self, info: Info) -> list[Run]:
        return await related_of(info, self, Rel.PART_OF, DOWN, Label.RUN)


@strawberry.type(description="The code a run executed.")
class CodeRef:
    repo: str | None
    commit: str | None
    dirty: bool | None


@strawberry.type(description="Why a run failed.")
class RunError:
    type: str | None
    message: str | None
    traceback: str | None


@strawberry.type(description="A USED edge of a run: a dataset version in a role.")
class RunInput:
    role: str | None
    dataset_version: DatasetVersionRef


@register(Label.RUN)
@strawberry.type(description="One training or processing run, failed and resumed ones included.")
class Run(Node):
    @strawberry.field
    def name(self) -> str | None:
        return text(self, "name")

    @strawberry.field
    def run_number(self) -> int | None:
        return integer(self, "run_number")

    @field(description="running | aborted | failed | completed")
    def status(self) -> str | None:
        return text(self, "status")

    @strawberry.field
    def started_at(self) -> str | None:
        return text(self, "started_at")

    @strawberry.field
    def ended_at(self) -> str | None:
        return text(self, "ended_at")

    @strawberry.field
    def params(self) -> JSON | None:
        return decoded(self, "params_json")

    @strawberry.field
    def final_metrics(self) -> JSON | None:
        return decoded(self, "final_metrics_json")

    @strawberry.field
    def final_step(self) -> int | None:
        return integer(self, "final_step")

    @strawberry.field
    def conclusion(self) -> str | None:
        return text(self, "conclusion")

    @strawberry.field
    def interruption_cause(self) -> str | None:
        return text(self, "interruption_cause")

    @strawberry.field
    def resumed_at_step(self) -> int | None:
        return integer(self, "resumed_at_step")

    @strawberry.field
    def abort_reason(self) -> str | None:
        return text(self, "abort_reason")

    @strawberry.field
    def code(self) -> CodeRef:
        return CodeRef(
            repo=text(self, "code_repo"),
            commit=text(self, "code_commit"),
            dirty=flag(self, "code_dirty"),
        )

    @strawberry.field
    def error(self) -> RunError | None:
        if text(self, "error_type") is None and text(self, "error_message") is None:
            return None
        return RunError(
            type=text(self, "error_type"),
            message=text(self, "error_message"),
            traceback=text(self, "error_traceback"),
        )

    @strawberry.field
    async def experiment(self, info: Info) -> Experiment | None:
        return cast(
            "Experiment | None", await one_of(info, self, Rel.PART_OF, UP, Label.EXPERIMENT)
        )

    @field(description="The dataset versions read, with their role (train...).")
    async def inputs(self, info: Info) -> list[RunInput]:
        pairs = await related(info, self, Rel.USED, UP)
        return [
            RunInput(role=edge.props.get("role"), dataset_version=as_ref(v, self.as_of))
            for edge, v in pairs
            if v.type == Label.DATASET_VERSION
        ]

    @strawberry.field
    async def environment(self, info: Info) -> Environment | None:
        return cast(
            "Environment | None", await one_of(info, self, Rel.RAN_IN, UP, Label.ENVIRONMENT)
        )

    @field(description="The model version or checkpoint this run fine-tuned from.")
    async def started_from(self, info: Info) -> Node | None:
        pairs = await related(info, self, Rel.STARTED_FROM, UP)
        return to_node(pairs[0][1], self.as_of) if pairs else None

    @field(description="Checkpoints this run resumed from after interruptions.")
    async def resumed_from(self, info: Info) -> list[Checkpoint]:
        return await related_of(info, self, Rel.RESUMED_FROM, UP, Label.CHECKPOINT)

    @strawberry.field
    async def checkpoints(self, info: Info) -> list[Checkpoint]:
        return await related_of(info, self, Rel.GENERATED_BY, DOWN, Label.CHECKPOINT)

    @field(description="Dataset versions this run produced.")
    async def outputs(self, info: Info) -> list[DatasetVersionRef]:
        return await related_of(info, self, Rel.GENERATED_BY, DOWN, Label.DATASET_VERSION)

    @strawberry.field
    async def model_versions(self, info: Info) -> list[ModelVersionRef]:
        return await related_of(info, self, Rel.GENERATED_BY, DOWN, Label.MODEL_VERSION)


@register(Label.CHECKPOINT)
@strawberry.type(description="A checkpoint a run saved.")
class Checkpoint(Node):
    @strawberry.field
    def step(self) -> int | None:
        return integer(self, "step")

    @strawberry.field
    def epoch(self) -> int | None:
        return integer(self, "epoch")

    @strawberry.field
    def uri(self) -> str | None:
        return text(self, "uri")

    @strawberry.field
    def checksum(self) -> str | None:
        return text(self, "checksum")

    @strawberry.field
    def size_bytes(self) -> float | None:
        # Sizes pass 2^31 (GraphQL Int is 32-bit): a Float keeps them exact up to 2^53.
        value = integer(self, "size_bytes")
        return None if value is None else float(value)

    @field(description="available | files_deleted")
    def status(self) -> str | None:
        return text(self, "status")

    @strawberry.field
    def metrics(self) -> JSON | None:
        return decoded(self, "metrics_json")

    @strawberry.field
    async def run(self, info: Info) -> Run | None:
        return cast("Run | None", await one_of(info, self, Rel.GENERATED_BY, UP, Label.RUN))

    @field(description="Runs that resumed from this checkpoint.")
    async def resumed_by(self, info: Info) -> list[Run]:
        return await related_of(info, self, Rel.RESUMED_FROM, DOWN, Label.RUN)

    @field(description="Model versions exported from this checkpoint.")
    async def exported_as(self, info: Info) -> list[ModelVersionRef]:
        return await related_of(info, self, Rel.EXPORTED_FROM, DOWN, Label.MODEL_VERSION)


@strawberry.type(description="A container image.")
class Image:
    name: str | None
    tag: str | None
    digest: str | None


@register(Label.ENVIRONMENT)
@strawberry.type(description="An environment snapshot or image version runs ran in.")
class Environment(Node):
    @strawberry.field
    def key(self) -> str | None:
        return text(self, "key")

    @strawberry.field
    def image(self) -> Image:
        return Image(
            name=text(self, "image_name"),
            tag=text(self, "image_tag"),
            digest=text(self, "image_digest"),
        )

    @strawberry.field
    def python_version(self) -> str | None:
        return text(self, "python_version")

    @field(description="Installed packages: {name: version}.")
    def packages(self) -> JSON | None:
        return decoded(self, "packages_json")

    @field(description="ML frameworks: {name: version}.")
    def frameworks(self) -> JSON | None:
        return decoded(self, "frameworks_json")

    @strawberry.field
    async def based_on(self, info: Info) -> Environment | None:
        return cast(
            "Environment | None", await one_of(info, self, Rel.BASED_ON, UP, Label.ENVIRONMENT)
        )

    @strawberry.field
    async def runs(self, info: Info) -> list[Run]:
        return await related_of(info, self, Rel.RAN_IN, DOWN, Label.RUN)
