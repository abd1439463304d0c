"""A synthetic lineage workload: small, seeded event streams for the projection tests.

Timestamps are drawn from a small range on purpose, so events collide in time and the
(occurred_at, event_id) tie-break is exercised. Event ids depend on the project as well as on
the seed, so the same seed in two projects never shares an event id in one Neo4j.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import UTC, datetime, timedelta

from provgraph.schemas import (
    CheckpointEvaluated,
    CheckpointSaved,
    DatasetRegistered,
    DatasetVersionCreated,
    DeploymentCreated,
    DeploymentUpdated,
    EntityDeleted,
    Event,
    ModelVersionRegistered,
    ModelVersionStatusChanged,
    Payload,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunStarted,
    checkpoint_id,
    dataset_version_id,
    model_version_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import CheckpointEvaluatedPayload, CheckpointSavedPayload
from provgraph.schemas.events.data import DatasetRegisteredPayload, DatasetVersionCreatedPayload
from provgraph.schemas.events.deployment import (
    DeploymentCreatedPayload,
    DeploymentUpdatedPayload,
    ServedModel,
)
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.governance import EntityDeletedPayload
from provgraph.schemas.events.model import ModelStatus, ModelVersionStatusChangedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload as MvPayload
from provgraph.schemas.events.run import (
    MetricPoint,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
)

_EPOCH = datetime(2024, 5, 1, tzinfo=UTC)
_PRODUCER = "https://provgraph.dev/workload"


class Workload:
    """Builds the events of a few datasets, runs, checkpoints (each evaluated), models and
    deployments."""

    def __init__(self, project: str, seed: int) -> None:
        self.project = project
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self._id_salt = int.from_bytes(hashlib.sha256(project.encode()).digest()[:16])

    def _emit(self, cls: type[Event], payload: Payload) -> None:
        when = _EPOCH + timedelta(seconds=self.rng.randrange(0, 40))
        event_id = uuid.UUID(int=self.rng.getrandbits(128) ^ self._id_salt, version=4)
        self.events.append(
            cls.create(
                project=self.project,
                producer=_PRODUCER,
                actor="user:workload",
                payload=payload,
                occurred_at=when,
                event_id=event_id,
            )
        )

    def build(self, runs: int = 3, datasets: int = 2) -> list[Event]:
        """The whole workload, in generation order."""
        versions = [self._dataset(f"ds{d}") for d in range(datasets)]
        for r in range(runs):
            # Run ids are global (run:<id>), so they carry the project to keep workloads apart.
            self._run(f"{self.project}-run{r}", self.rng.sample(versions, k=min(2, len(versions))))
        return self.events

    def _dataset(self, name: str) -> str:
        self._emit(DatasetRegistered, DatasetRegisteredPayload(name=name, owner="data"))
        for v in range(self.rng.randint(1, 2)):
            payload = DatasetVersionCreatedPayload(
                name=name,
                version=f"v{v}",
                storage_uri=f"s3://bucket/{name}/v{v}",
                record_count=self.rng.randrange(1000),
                previous_version=f"v{v - 1}" if v else None,
            )
            self._emit(DatasetVersionCreated, payload)
        return dataset_version_id(self.project, name, "v0")

    def _run(self, key: str, inputs: list[str]) -> None:
        used = tuple(RunInput(dataset_version=i, role="train") for i in inputs)
        params = {"lr": self.rng.choice([1e-4, 3e-4]), "opt": {"name": "adam"}}
        self._emit(RunStarted, RunStartedPayload(run_id=key, inputs=used, params=params))
        for _ in range(self.rng.randint(1, 3)):
            step = self.rng.randrange(0, 500, 100)
            points = (MetricPoint(name="loss", step=step, value=self.rng.random()),)
            self._emit(RunMetricsLogged, RunMetricsLoggedPayload(run_id=key, points=points))
        step = self.rng.randrange(100, 1000, 100)
        ckpt = CheckpointSavedPayload(run_id=key, step=step, uri=f"s3://ckpt/{key}/{step}")
        self._emit(CheckpointSaved, ckpt)
        self._evaluated(key, step, inputs)
        self._end(key)
        if self.rng.random() < 0.6:
            self._model(key, step)

    def _evaluated(self, key: str, step: int, data: list[str]) -> None:
        """The checkpoint evaluated on the run's data, registering no model version."""
        payload = CheckpointEvaluatedPayload(
            evaluation_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{key}/{step}"),
            checkpoint=checkpoint_id(key, step),
            suite="smoke",
            dataset_versions=tuple(data),
            metrics={"acc": round(self.rng.random(), 3)},
            passed=True,
        )
        self._emit(CheckpointEvaluated, payload)

    def _end(self, key: str) -> None:
        if self.rng.random() < 0.3:
            error = RunError(type="OOM", message="out of memory")
            self._emit(RunFailed, RunFailedPayload(run_id=key, conclusion="oom", error=error))
        self._emit(RunCompleted, RunCompletedPayload(run_id=key, conclusion="ok"))

    def _model(self, key: str, step: int) -> None:
        version = f"{key}-1"
        payload = MvPayload(name="m", version=version, produced_by_run=run_id(key))
        self._emit(ModelVersionRegistered, payload)
        mv = model_version_id(self.project, "m", version)
        for to in self.rng.sample([ModelStatus.APPROVED, ModelStatus.DELIVERED], k=2):
            change = ModelVersionStatusChangedPayload(model_version=mv, to_status=to)
            self._emit(ModelVersionStatusChanged, change)
        served = (ServedModel(model_version=mv, traffic_share=0.5),)
        created = DeploymentCreatedPayload(
            name=f"dep-{key}", endpoint="https://api/x", environment="prod", serves=served
        )
        self._emit(DeploymentCreated, created)
        update = DeploymentUpdatedPayload(
            name=f"dep-{key}", serves=(ServedModel(model_version=mv, traffic_share=1.0),)
        )
        self._emit(DeploymentUpdated, update)
        if self.rng.random() < 0.3:
            self._emit(EntityDeleted, EntityDeletedPayload(entity=mv, reason="withdrawn"))
