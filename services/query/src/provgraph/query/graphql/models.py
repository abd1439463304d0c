"""The model registry (models, versions, evaluations) and deployments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.node import (
    Node,
    as_ref,
    decoded,
    field,
    flag,
    one_of,
    register,
    related,
    related_of,
    strings,
    text,
)
from provgraph.query.graphql.refs import CheckpointRef, DatasetVersionRef, EnvironmentRef, RunRef
from provgraph.query.model import Direction
from provgraph.schemas.graph import Label, Rel

UP, DOWN = Direction.UPSTREAM, Direction.DOWNSTREAM


@register(Label.MODEL)
@strawberry.type(description="A registered model: the family of its versions.")
class Model(Node):
    @strawberry.field
    def name(self) -> str | None:
        return text(self, "name")

    @strawberry.field
    async def versions(self, info: Info) -> list[ModelVersion]:
        return await related_of(info, self, Rel.VERSION_OF, DOWN, Label.MODEL_VERSION)


@register(Label.MODEL_VERSION)
@strawberry.type(description="One registered version of a model.")
class ModelVersion(Node):
    @strawberry.field
    def name(self) -> str | None:
        return text(self, "name")

    @strawberry.field
    def version(self) -> str | None:
        return text(self, "version")

    @field(description="candidate | approved | delivered | rejected | retired")
    def status(self) -> str | None:
        return text(self, "status")

    @strawberry.field
    def status_reason(self) -> str | None:
        return text(self, "status_reason")

    @strawberry.field
    def uri(self) -> str | None:
        return text(self, "uri")

    @strawberry.field
    def checksum(self) -> str | None:
        return text(self, "checksum")

    @strawberry.field
    def description(self) -> str | None:
        return text(self, "description")

    @field(description="What this version is fit for, as registered.")
    def fit_for(self) -> list[str]:
        return strings(self, "fit_for")

    @strawberry.field
    def registered_at(self) -> str | None:
        return text(self, "registered_at")

    @field(description="Validation checks recorded at registration.")
    def validation(self) -> JSON | None:
        return decoded(self, "validation_json")

    @strawberry.field
    def validation_passed(self) -> bool | None:
        return flag(self, "validation_passed")

    @strawberry.field
    async def model(self, info: Info) -> Model | None:
        return cast("Model | None", await one_of(info, self, Rel.VERSION_OF, UP, Label.MODEL))

    @field(description="The run that trained this version.")
    async def produced_by(self, info: Info) -> RunRef | None:
        return cast("RunRef | None", await one_of(info, self, Rel.GENERATED_BY, UP, Label.RUN))

    @strawberry.field
    async def exported_from(self, info: Info) -> CheckpointRef | None:
        return cast(
            "CheckpointRef | None",
            await one_of(info, self, Rel.EXPORTED_FROM, UP, Label.CHECKPOINT),
        )

    @strawberry.field
    async def evaluations(self, info: Info) -> list[Evaluation]:
        return await related_of(info, self, Rel.EVALUATED, DOWN, Label.EVALUATION)

    @field(description="Deployments serving this version.")
    async def deployments(self, info: Info) -> list[Deployment]:
        return await related_of(info, self, Rel.SERVES, DOWN, Label.DEPLOYMENT)

    @field(description="Runs that started from this version (fine-tunes).")
    async def fine_tunes(self, info: Info) -> list[RunRef]:
        return await related_of(info, self, Rel.STARTED_FROM, DOWN, Label.RUN)


@register(Label.EVALUATION)
@strawberry.type(description="An evaluation of a model version on a suite.")
class Evaluation(Node):
    @strawberry.field
    def suite(self) -> str | None:
        return text(self, "suite")

    @strawberry.field
    def suite_version(self) -> str | None:
        return text(self, "suite_version")

    @strawberry.field
    def passed(self) -> bool | None:
        return flag(self, "passed")

    @strawberry.field
    def metrics(self) -> JSON | None:
        return decoded(self, "metrics_json")

    @strawberry.field
    def evaluated_at(self) -> str | None:
        return text(self, "evaluated_at")

    @strawberry.field
    async def model_version(self, info: Info) -> ModelVersion | None:
        return cast(
            "ModelVersion | None", await one_of(info, self, Rel.EVALUATED, UP, Label.MODEL_VERSION)
        )

    @field(description="The evaluation data.")
    async def datasets(self, info: Info) -> list[DatasetVersionRef]:
        return await related_of(info, self, Rel.USED, UP, Label.DATASET_VERSION)


@strawberry.type(description="A SERVES edge: a model version and its share of traffic.")
class Serving:
    traffic_share: float | None
    model_version: ModelVersion


@register(Label.DEPLOYMENT)
@strawberry.type(description="A deployment serving model versions.")
class Deployment(Node):
    @strawberry.field
    def name(self) -> str | None:
        return text(self, "name")

    @strawberry.field
    def endpoint(self) -> str | None:
        return text(self, "endpoint")

    @field(description="Where it runs, e.g. `production`.")
    def environment(self) -> str | None:
        return text(self, "environment")

    @field(description="active | retired")
    def status(self) -> str | None:
        return text(self, "status")

    @strawberry.field
    def created_at(self) -> str | None:
        return text(self, "created_at")

    @strawberry.field
    def retired_at(self) -> str | None:
        return text(self, "retired_at")

    @strawberry.field
    async def serves(self, info: Info) -> list[Serving]:
        pairs = await related(info, self, Rel.SERVES, UP)
        return [
            Serving(traffic_share=_share(edge.props), model_version=as_ref(v, self.as_of))
            for edge, v in pairs
            if v.type == Label.MODEL_VERSION
        ]

    @field(description="The runtime environment image, when recorded.")
    async def runtime(self, info: Info) -> EnvironmentRef | None:
        return cast(
            "EnvironmentRef | None", await one_of(info, self, Rel.RAN_IN, UP, Label.ENVIRONMENT)
        )


def _share(props: Mapping[str, Any]) -> float | None:
    value = props.get("traffic_share")
    return float(value) if isinstance(value, int | float) else None
