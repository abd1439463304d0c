"""Experiment archive events: experiments and the start of runs."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text
from provgraph.schemas.events.common import Count, DegreeMap, JsonMap, Label, Positive, Tags
from provgraph.schemas.ids import (
    BaseModelRef,
    CheckpointId,
    DatasetVersionId,
    EnvironmentId,
    ExperimentId,
    Name,
    RunId,
    RunKey,
    experiment_id,
    run_id,
)
from provgraph.schemas.patterns import whole


class ExperimentCreatedPayload(Payload):
    """An experiment groups and numbers runs. Subject: ``experiment:<project>/<key>``."""

    key: Name
    number: Positive | None = None
    code_name: Label | None = None
    goal: Text
    description: Text | None = None
    tags: Tags = ()

    def subject(self, project: str) -> str:
        return experiment_id(project, self.key)


class ExperimentCreated(Event):
    """``experiment.created`` v1."""

    event_type: Literal["experiment.created"] = "experiment.created"
    schema_version: Literal[1] = 1
    payload: ExperimentCreatedPayload


class CodeRef(ContractModel):
    """The code a run executed: repository, commit and whether the tree was dirty."""

    repo: str = Field(min_length=1, max_length=1024)
    commit: str = Field(pattern=whole("[0-9a-f]{7,64}"))
    dirty: bool
    branch: Label | None = None
    entrypoint: Annotated[str, Field(max_length=1024)] | None = None


class InputRole(StrEnum):
    """How a run uses an input dataset version."""

    TRAIN = "train"
    VALIDATION = "validation"
    TEST = "test"
    EVAL = "eval"


class RunInput(ContractModel):
    """An input dataset version and its role."""

    dataset_version: DatasetVersionId
    role: InputRole


class Resources(ContractModel):
    """Compute used and how the job was parallelised (data/tensor/pipeline/expert degrees)."""

    num_nodes: Positive | None = None
    devices_per_node: Count | None = None
    accelerator: Label | None = None
    parallelism: DegreeMap = Field(default_factory=dict)
    extra: JsonMap = Field(default_factory=dict)


class RunStartedV1Payload(Payload):
    """A run (one attempt of training or evaluation) starts. Subject: ``run:<run_id>``."""

    run_id: RunKey
    experiment: ExperimentId | None = None
    run_number: Positive | None = None
    name: Label | None = None
    params: JsonMap = Field(default_factory=dict)
    code: CodeRef | None = None
    environment: EnvironmentId | None = None
    inputs: tuple[RunInput, ...] = ()
    resources: Resources | None = None
    base_model: BaseModelRef | None = None
    resumed_from: CheckpointId | None = None

    def subject(self, project: str) -> str:
        return run_id(self.run_id)


class RunStartedV1(Event):
    """``run.started`` v1 (historical): still readable, upcast to v2 when read."""

    event_type: Literal["run.started"] = "run.started"
    schema_version: Literal[1] = 1
    payload: RunStartedV1Payload


class RunStartedPayload(RunStartedV1Payload):
    """A run (one attempt of training or evaluation) starts. Subject: ``run:<run_id>``.

    `scaled_from`: the pilot this run scales up (a smaller run of the same project, never the
    run itself); `provgraph scale-up` shows the two side by side.
    """

    scaled_from: RunId | None = None

    @model_validator(mode="after")
    def _not_its_own_pilot(self) -> RunStartedPayload:
        if self.scaled_from is not None and self.scaled_from == run_id(self.run_id):
            raise ValueError(f"scaled_from: run {self.scaled_from} cannot be its own pilot")
        return self


class RunStarted(Event):
    """``run.started`` v2 (current): v1 and `scaled_from`."""

    event_type: Literal["run.started"] = "run.started"
    schema_version: Literal[2] = 2
    payload: RunStartedPayload


def upcast_run_started_v1(event: dict[str, Any]) -> dict[str, Any]:
    """``run.started`` v1 -> v2: the same payload, no pilot (`scaled_from` absent)."""
    return {**event, "schema_version": 2}
