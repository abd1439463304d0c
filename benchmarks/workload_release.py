"""The release side of the benchmark workload: environments, model versions, evaluations,
status changes and deployments of one project."""

from __future__ import annotations

import random
import uuid
from typing import Protocol

from provgraph.schemas import (
    DeploymentCreated,
    DeploymentUpdated,
    EnvironmentSnapshotRecorded,
    Event,
    ModelVersionEvaluated,
    ModelVersionRegistered,
    ModelVersionStatusChanged,
    Payload,
    environment_id,
    model_version_id,
)
from provgraph.schemas.events.deployment import (
    DeploymentCreatedPayload,
    DeploymentUpdatedPayload,
    ServedModel,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload, ImageRef
from provgraph.schemas.events.model import (
    ModelStatus,
    ModelVersionEvaluatedPayload,
    ModelVersionRegisteredPayload,
    ModelVersionStatusChangedPayload,
)


class Emitting(Protocol):
    def emit(self, cls: type[Event], project: str, payload: Payload) -> None: ...

    def digest(self, text: str) -> str: ...


class Release:
    """Environments first; then, per experiment, the shipped model version of its best run."""

    MODEL = "chat-7b"
    DEPLOYMENT = "chat-api"

    def __init__(self, stream: Emitting, project: str, rng: random.Random) -> None:
        self.stream, self.project, self.rng = stream, project, rng
        self.deployed = False

    def _emit(self, cls: type[Event], payload: Payload) -> None:
        self.stream.emit(cls, self.project, payload)

    def environments(self) -> str:
        """A CUDA base image and the trainer image built on it; returns the trainer's id."""
        base = EnvironmentSnapshotRecordedPayload(
            key="cuda-base-12.4",
            image=ImageRef(name="nvidia/cuda", tag="12.4", digest=self.stream.digest("base")),
            python_version="3.11.9",
        )
        self._emit(EnvironmentSnapshotRecorded, base)
        trainer = EnvironmentSnapshotRecordedPayload(
            key="trainer-2025-01",
            image=ImageRef(name="llm/trainer", tag="2025.01", digest=self.stream.digest("t")),
            based_on=environment_id(self.project, "cuda-base-12.4"),
            frameworks={"torch": "2.5.1", "transformers": "4.47.0"},
        )
        self._emit(EnvironmentSnapshotRecorded, trainer)
        return environment_id(self.project, "trainer-2025-01")

    def ship(self, best: tuple[str, str], e: int, evaluation: str) -> str:
        """Register, evaluate, approve, deliver and deploy; return the model version id."""
        run, checkpoint = best
        version = f"{e + 1}.0.0"
        registered = ModelVersionRegisteredPayload(
            name=self.MODEL, version=version, produced_by_run=run, checkpoint=checkpoint
        )
        self._emit(ModelVersionRegistered, registered)
        mv = model_version_id(self.project, self.MODEL, version)
        evaluated = ModelVersionEvaluatedPayload(
            evaluation_id=uuid.UUID(int=self.rng.getrandbits(128), version=4),
            model_version=mv,
            suite="helm-lite",
            dataset_versions=(evaluation,),
            metrics={"mmlu": round(self.rng.uniform(0.4, 0.7), 4)},
            passed=True,
        )
        self._emit(ModelVersionEvaluated, evaluated)
        for before, after in (
            (ModelStatus.CANDIDATE, ModelStatus.APPROVED),
            (ModelStatus.APPROVED, ModelStatus.DELIVERED),
        ):
            change = ModelVersionStatusChangedPayload(
                model_version=mv, from_status=before, to_status=after
            )
            self._emit(ModelVersionStatusChanged, change)
        self._deploy(mv)
        return mv

    def _deploy(self, mv: str) -> None:
        serves = (ServedModel(model_version=mv, traffic_share=1.0),)
        if not self.deployed:
            created = DeploymentCreatedPayload(
                name=self.DEPLOYMENT,
                endpoint="https://api.example/chat",
                environment="prod",
                serves=serves,
            )
            self._emit(DeploymentCreated, created)
            self.deployed = True
        else:
            self._emit(
                DeploymentUpdated, DeploymentUpdatedPayload(name=self.DEPLOYMENT, serves=serves)
            )
