"""The legitimate traffic of the chaos run: seeded training jobs, one project each.

A job is what a training script emits: a dataset version, a run that reads it (and sometimes
a dataset version of another project, which every writer may read), metrics, checkpoints,
the end of the run, sometimes a registered model and a deleted checkpoint. Ids and choices
come from the seed; `occurred_at` is the wall clock (a little in the past), because the
projector bounds it by the broker's time.
"""

from __future__ import annotations

import random
import threading
import uuid
from datetime import UTC, datetime, timedelta

from provgraph.schemas import (
    CheckpointDeleted,
    CheckpointSaved,
    DatasetVersionCreated,
    Event,
    ModelVersionRegistered,
    Payload,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunStarted,
    checkpoint_id,
    dataset_version_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import CheckpointDeletedPayload, CheckpointSavedPayload
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload
from provgraph.schemas.events.run import (
    MetricPoint,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
)

PRODUCER = "https://provgraph.dev/tests/chaos"
DATASETS = ("web", "code", "books", "math")


class DatasetVersions:
    """Dataset versions the jobs created so far, by project (shared by every producer)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: dict[str, list[str]] = {}

    def add(self, project: str, version_id: str) -> None:
        with self._lock:
            self._ids.setdefault(project, []).append(version_id)

    def of(self, project: str) -> list[str]:
        with self._lock:
            return list(self._ids.get(project, ()))


class Jobs:
    """Builds the events of one job at a time, from a seeded random generator."""

    def __init__(self, rng: random.Random, actor: str, versions: DatasetVersions) -> None:
        self.rng = rng
        self.actor = actor
        self.versions = versions

    def new_id(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def event(self, cls: type[Event], project: str, payload: Payload) -> Event:
        when = datetime.now(UTC) - timedelta(milliseconds=self.rng.randrange(0, 3000))
        return cls.create(
            project=project,
            producer=PRODUCER,
            actor=self.actor,
            payload=payload,
            occurred_at=when,
            event_id=self.new_id(),
        )

    def job(self, project: str, others: list[str]) -> list[Event]:
        """The events of one training job of `project`, in emit order."""
        key = f"{project}-{self.rng.getrandbits(48):012x}"
        events = [self._dataset(project)]
        events.append(self._start(project, key, events[0], others))
        steps = sorted(self.rng.sample(range(100, 5000, 100), k=self.rng.randint(1, 3)))
        for step in steps:
            points = (MetricPoint(name="loss", step=step, value=round(self.rng.random(), 4)),)
            payload = RunMetricsLoggedPayload(run_id=key, points=points)
            events.append(self.event(RunMetricsLogged, project, payload))
            ckpt = CheckpointSavedPayload(
                run_id=key, step=step, uri=f"s3://{project}/ckpt/{key}/{step}", size_bytes=step
            )
            events.append(self.event(CheckpointSaved, project, ckpt))
        events.append(self._end(project, key))
        if self.rng.random() < 0.4:
            model = ModelVersionRegisteredPayload(
                name="lm", version=key, produced_by_run=run_id(key)
            )
            events.append(self.event(ModelVersionRegistered, project, model))
        if len(steps) > 1 and self.rng.random() < 0.3:
            gone = CheckpointDeletedPayload(checkpoint=checkpoint_id(key, steps[0]), reason="gc")
            events.append(self.event(CheckpointDeleted, project, gone))
        return events

    def _dataset(self, project: str) -> Event:
        name = self.rng.choice(DATASETS)
        version = f"v{self.rng.getrandbits(32):08x}"
        payload = DatasetVersionCreatedPayload(
            name=name,
            version=version,
            storage_uri=f"s3://{project}/{name}/{version}",
            record_count=self.rng.randrange(1, 10**6),
        )
        self.versions.add(project, dataset_version_id(project, name, version))
        return self.event(DatasetVersionCreated, project, payload)

    def _start(self, project: str, key: str, dataset: Event, others: list[str]) -> Event:
        inputs = [RunInput(dataset_version=dataset.subject, role="train")]
        foreign = [v for other in others if other != project for v in self.versions.of(other)]
        if foreign and self.rng.random() < 0.3:  # a reference across projects: allowed
            inputs.append(RunInput(dataset_version=self.rng.choice(foreign), role="eval"))
        params = {
            "lr": self.rng.choice([1e-4, 3e-4, 1e-3]),
            "batch": self.rng.choice([256, 512, 1024]),
            "optimizer": {"name": "adamw", "betas": [0.9, 0.95]},
        }
        payload = RunStartedPayload(run_id=key, inputs=tuple(inputs), params=params)
        return self.event(RunStarted, project, payload)

    def _end(self, project: str, key: str) -> Event:
        if self.rng.random() < 0.2:
            error = RunError(type="OOM", message="CUDA out of memory")
            failed = RunFailedPayload(run_id=key, conclusion="oom", error=error)
            return self.event(RunFailed, project, failed)
        done = RunCompletedPayload(run_id=key, conclusion="converged", final_metrics={"loss": 1.5})
        return self.event(RunCompleted, project, done)
