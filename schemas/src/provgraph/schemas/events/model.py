"""Model archive events: registered model versions, evaluations and status changes."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text, Uuid
from provgraph.schemas.events.common import Checksum, JsonMap, JsonScalar, Label, StorageUri
from provgraph.schemas.ids import (
    CheckpointId,
    DatasetVersionId,
    ModelVersionId,
    Name,
    RunId,
    VersionLabel,
    evaluation_id,
    model_version_id,
)


class ValidationResult(ContractModel):
    """One validation performed before registration."""

    name: Text
    passed: bool
    value: JsonScalar = None
    details: Text | None = None


_RUN_OR_CHECKPOINT: dict[str, Any] = {
    "anyOf": [{"required": ["produced_by_run"]}, {"required": ["checkpoint"]}]
}


class ModelVersionRegisteredPayload(Payload):
    """A model version enters the registry; produced by a run and/or a checkpoint.

    Subject: ``model:<project>/<name>@<version>``.
    """

    model_config = ConfigDict(json_schema_extra=_RUN_OR_CHECKPOINT)

    name: Name
    version: VersionLabel
    produced_by_run: RunId | None = None
    checkpoint: CheckpointId | None = None
    uri: StorageUri | None = None
    checksum: Checksum | None = None
    validation: tuple[ValidationResult, ...] = ()
    fit_for: Annotated[tuple[Text, ...], Field(max_length=256)] = ()
    description: Text | None = None

    @model_validator(mode="after")
    def _has_origin(self) -> Self:
        if self.produced_by_run is None and self.checkpoint is None:
            raise ValueError("a model version needs produced_by_run, checkpoint, or both")
        return self

    def subject(self, project: str) -> str:
        return model_version_id(project, self.name, self.version)


class ModelVersionRegistered(Event):
    """``model.version.registered`` v1."""

    event_type: Literal["model.version.registered"] = "model.version.registered"
    schema_version: Literal[1] = 1
    payload: ModelVersionRegisteredPayload


class ModelVersionEvaluatedPayload(Payload):
    """An evaluation of a model version. Subject: ``evaluation:<evaluation_id>``."""

    evaluation_id: Uuid
    model_version: ModelVersionId
    suite: Text
    suite_version: Label | None = None
    dataset_versions: tuple[DatasetVersionId, ...] = ()
    run: RunId | None = None
    metrics: JsonMap = Field(default_factory=dict)
    passed: bool

    def subject(self, project: str) -> str:
        return evaluation_id(self.evaluation_id)


class ModelVersionEvaluated(Event):
    """``model.version.evaluated`` v1."""

    event_type: Literal["model.version.evaluated"] = "model.version.evaluated"
    schema_version: Literal[1] = 1
    payload: ModelVersionEvaluatedPayload


class ModelStatus(StrEnum):
    """Lifecycle of a model version; it only moves forward (see `ALLOWED_TRANSITIONS`)."""

    CANDIDATE = "candidate"
    APPROVED = "approved"
    DELIVERED = "delivered"
    RETIRED = "retired"
    REJECTED = "rejected"


_S = ModelStatus
ALLOWED_TRANSITIONS: dict[ModelStatus, frozenset[ModelStatus]] = {
    _S.CANDIDATE: frozenset({_S.APPROVED, _S.REJECTED, _S.RETIRED}),
    _S.APPROVED: frozenset({_S.DELIVERED, _S.REJECTED, _S.RETIRED}),
    _S.DELIVERED: frozenset({_S.RETIRED}),
    _S.RETIRED: frozenset(),
    _S.REJECTED: frozenset(),
}


def _transitions_schema() -> dict[str, Any]:
    """`ALLOWED_TRANSITIONS` in JSON Schema: given `from_status`, which `to_status` may follow."""
    rules: list[dict[str, Any]] = []
    for before, after in ALLOWED_TRANSITIONS.items():
        allowed = [s.value for s in ModelStatus if s in after]
        # No status may follow a final one: `then` is the schema that nothing satisfies.
        then: dict[str, Any] | bool = {"properties": {"to_status": {"enum": allowed}}}
        rules.append(
            {
                "if": {
                    "properties": {"from_status": {"const": before.value}},
                    "required": ["from_status"],
                },
                "then": then if allowed else False,
            }
        )
    return {"allOf": rules}


class ModelVersionStatusChangedPayload(Payload):
    """A model version moves through its lifecycle. Subject: the model version id."""

    model_config = ConfigDict(json_schema_extra=_transitions_schema())

    model_version: ModelVersionId
    from_status: ModelStatus | None = None
    to_status: ModelStatus
    reason: Text | None = None

    @model_validator(mode="after")
    def _moves_forward(self) -> Self:
        if self.from_status is None or self.to_status in ALLOWED_TRANSITIONS[self.from_status]:
            return self
        raise ValueError(f"status cannot move from {self.from_status} to {self.to_status}")

    def subject(self, project: str) -> str:
        return self.model_version


class ModelVersionStatusChanged(Event):
    """``model.version.status.changed`` v1."""

    event_type: Literal["model.version.status.changed"] = "model.version.status.changed"
    schema_version: Literal[1] = 1
    payload: ModelVersionStatusChangedPayload
