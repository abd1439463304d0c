"""Experiment archive events: experiments and the start of runs."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text
from provgraph.schemas.events.common import Count, DegreeMap, JsonMap, Label, Positive, Tags
from provgraph.schemas.ids import (
    BaseModelRef,
    CheckpointId,
    DatasetVersionId,
    EnvironmentId,
    ExperimentId,
    Name,
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


class RunStartedPayload(Payload):
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


class RunStarted(Event):
    """``run.started`` v1."""

    event_type: Literal["run.started"] = "run.started"
    schema_version: Literal[1] = 1
    payload: RunStartedPayload
