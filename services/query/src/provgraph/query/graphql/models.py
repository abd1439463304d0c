"""The model registry (models, versions, evaluations) and deployments."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.feedback import ModelFeedback, feedback_field
from provgraph.query.graphql.fields import as_float, decoded, flag, strings, text
from provgraph.query.graphql.node import DOWN, UP, Node, linked, neighbour, neighbours, register
from provgraph.query.graphql.refs import CheckpointRef, DatasetVersionRef, EnvironmentRef, RunRef
from provgraph.schemas.graph import Label, Rel


@register(Label.MODEL)
@strawberry.type(description="A registered model: the family of its versions.")
class Model(Node):
    name: str | None = text("name")
    versions: list[ModelVersion] = neighbours(Rel.VERSION_OF, DOWN, Label.MODEL_VERSION)


@register(Label.MODEL_VERSION)
@strawberry.type(description="One registered version of a model.")
class ModelVersion(Node):
    name: str | None = text("name")
    version: str | None = text("version")
    status: str | None = text("status", "candidate | approved | delivered | rejected | retired")
    status_reason: str | None = text("status_reason")
    uri: str | None = text("uri")
    checksum: str | None = text("checksum")
    description: str | None = text("description")
    fit_for: list[str] = strings("fit_for", "What this version is fit for, as registered.")
    registered_at: str | None = text("registered_at")
    validation: JSON | None = decoded("validation", "Validation checks recorded at registration.")
    validation_passed: bool | None = flag("validation_passed")
    model: Model | None = neighbour(Rel.VERSION_OF, UP, Label.MODEL)
    produced_by: RunRef | None = neighbour(
        Rel.GENERATED_BY, UP, Label.RUN, "The run that trained this version."
    )
    exported_from: CheckpointRef | None = neighbour(Rel.EXPORTED_FROM, UP, Label.CHECKPOINT)
    evaluations: list[Evaluation] = neighbours(Rel.EVALUATED, DOWN, Label.EVALUATION)
    deployments: list[Deployment] = neighbours(
        Rel.SERVES, DOWN, Label.DEPLOYMENT, "Deployments serving this version."
    )
    fine_tunes: list[RunRef] = neighbours(
        Rel.STARTED_FROM, DOWN, Label.RUN, "Runs that started from this version (fine-tunes)."
    )
    feedback: list[ModelFeedback] = feedback_field()


@register(Label.EVALUATION)
@strawberry.type(
    description="An evaluation on a suite: of a model version (`model.version.evaluated`) or "
    "of a checkpoint, registering no model version (`checkpoint.evaluated`)."
)
class Evaluation(Node):
    suite: str | None = text("suite")
    suite_version: str | None = text("suite_version")
    passed: bool | None = flag("passed")
    metrics: JSON | None = decoded("metrics")
    evaluated_at: str | None = text("evaluated_at")
    model_version: ModelVersion | None = neighbour(Rel.EVALUATED, UP, Label.MODEL_VERSION)
    checkpoint: CheckpointRef | None = neighbour(
        Rel.EVALUATED, UP, Label.CHECKPOINT, "The checkpoint evaluated (`checkpoint.evaluated`)."
    )
    datasets: list[DatasetVersionRef] = neighbours(
        Rel.USED, UP, Label.DATASET_VERSION, "The evaluation data."
    )


@strawberry.type(description="A SERVES edge: a model version and its share of traffic.")
class Serving:
    traffic_share: float | None
    model_version: ModelVersion


@register(Label.DEPLOYMENT)
@strawberry.type(description="A deployment serving model versions.")
class Deployment(Node):
    name: str | None = text("name")
    endpoint: str | None = text("endpoint")
    environment: str | None = text("environment", "Where it runs, e.g. `production`.")
    status: str | None = text("status", "active | retired")
    created_at: str | None = text("created_at")
    retired_at: str | None = text("retired_at")
    serves: list[Serving] = linked(
        Rel.SERVES,
        UP,
        Label.MODEL_VERSION,
        lambda edge, v: Serving(
            traffic_share=as_float(edge.props.get("traffic_share")), model_version=v
        ),
    )
    runtime: EnvironmentRef | None = neighbour(
        Rel.RAN_IN, UP, Label.ENVIRONMENT, "The runtime environment image, when recorded."
    )
