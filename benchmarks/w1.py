"""W1, the fixed workload both provgraph and MLflow log: 100 runs x (30 params, 3 metrics x 200
steps, 3 tags: commit, image digest, experiment number; a training and a validation input out
of 10 dataset versions), then 20 model versions registered from 20 of the runs."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from benchmarks.workload import Stream
from provgraph.schemas import (
    DatasetRegistered,
    DatasetVersionCreated,
    EnvironmentSnapshotRecorded,
    Event,
    ExperimentCreated,
    ModelVersionRegistered,
    RunCompleted,
    RunMetricsLogged,
    RunStarted,
    dataset_version_id,
    environment_id,
    model_version_id,
    run_id,
)
from provgraph.schemas.events.data import DatasetRegisteredPayload, DatasetVersionCreatedPayload
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload, ImageRef
from provgraph.schemas.events.experiment import (
    CodeRef,
    ExperimentCreatedPayload,
    RunInput,
    RunStartedPayload,
)
from provgraph.schemas.events.model import ModelVersionRegisteredPayload
from provgraph.schemas.events.run import MetricPoint, RunCompletedPayload, RunMetricsLoggedPayload

PROJECT, MODEL, EXPERIMENT = "w1", "w1-model", "w1-exp"
RUNS, PARAMS, STEPS, MODELS = 100, 30, 200, 20
METRICS = ("loss", "accuracy", "lr")
DATASETS = [("train-corpus", f"v{i}") for i in range(1, 6)] + [
    ("val-set", f"v{i}") for i in range(1, 6)
]


@dataclass
class W1Run:
    key: str
    params: dict[str, str]
    commit: str
    image: str  # the image digest
    train: tuple[str, str]
    validation: tuple[str, str]
    metrics: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class W1:
    runs: list[W1Run]
    models: list[tuple[int, str]]  # (version number, run key)
    images: list[str]
    project: str = PROJECT

    @classmethod
    def make(cls, seed: int = 11, runs: int = RUNS, project: str = PROJECT) -> W1:
        """W1 itself, or with `runs` runs (and models in the same proportion) for a smoke run.
        In another `project` its ids are its own (run keys too, which are global): the same
        work logged again beside the first, as a tracking service keeps every round."""
        rng = random.Random(seed)
        images = ["sha256:" + f"{rng.getrandbits(256):064x}" for _ in range(3)]
        made = []
        for i in range(runs):
            params = {f"p{j:02d}": str(round(rng.uniform(0, 1), 6)) for j in range(PARAMS)}
            run = W1Run(
                key=f"{project}-run-{i:03d}",
                params=params,
                commit=f"{rng.getrandbits(160):040x}",
                image=rng.choice(images),
                train=rng.choice(DATASETS[:5]),
                validation=rng.choice(DATASETS[5:]),
                metrics={m: [rng.random() for _ in range(STEPS)] for m in METRICS},
            )
            made.append(run)
        chosen = sorted(rng.sample(range(runs), max(1, MODELS * runs // RUNS)))
        return cls(made, [(n + 1, made[i].key) for n, i in enumerate(chosen)], images, project)

    # -- the answers, from the definition --------------------------------------------------

    def used_for_training(self, dataset: tuple[str, str]) -> list[str]:
        return sorted(r.key for r in self.runs if r.train == dataset)

    def model_answer(self, number: int) -> tuple[str, dict[str, str], set[str]]:
        key = dict(self.models)[number]
        run = next(r for r in self.runs if r.key == key)
        datasets = {f"train:{self.dv_id(run.train)}", f"validation:{self.dv_id(run.validation)}"}
        return key, run.params, datasets

    # -- provgraph's events ----------------------------------------------------------------

    def events(self) -> list[Event]:
        stream = Stream(random.Random(5 if self.project == PROJECT else self.project))
        emit = stream.emit_for(self.project)
        for n, digest in enumerate(self.images):
            image = ImageRef(name="trainer", tag=f"t{n}", digest=digest)
            emit(
                EnvironmentSnapshotRecorded,
                EnvironmentSnapshotRecordedPayload(key=digest, image=image),
            )
        emit(ExperimentCreated, ExperimentCreatedPayload(key=EXPERIMENT, number=1, goal="W1"))
        for name, version in DATASETS:
            if version == "v1":
                emit(DatasetRegistered, DatasetRegisteredPayload(name=name))
            uri = f"s3://w1/{name}/{version}"
            previous = None if version == "v1" else f"v{int(version[1:]) - 1}"
            payload = DatasetVersionCreatedPayload(
                name=name, version=version, storage_uri=uri, previous_version=previous
            )
            emit(DatasetVersionCreated, payload)
        for i, run in enumerate(self.runs):
            emit(RunStarted, self._start(run, i))
            points = tuple(
                MetricPoint(name=m, step=s, value=v)
                for m, values in run.metrics.items()
                for s, v in enumerate(values)
            )
            emit(RunMetricsLogged, RunMetricsLoggedPayload(run_id=run.key, points=points))
            emit(RunCompleted, RunCompletedPayload(run_id=run.key, conclusion="done"))
        for number, key in self.models:
            registered = ModelVersionRegisteredPayload(
                name=MODEL, version=str(number), produced_by_run=run_id(key)
            )
            emit(ModelVersionRegistered, registered)
        return stream.events

    def _start(self, run: W1Run, i: int) -> RunStartedPayload:
        return RunStartedPayload(
            run_id=run.key,
            experiment=f"experiment:{self.project}/{EXPERIMENT}",
            run_number=i + 1,
            params=dict(run.params),
            code=CodeRef(repo="https://git.example/w1", commit=run.commit, dirty=False),
            environment=environment_id(self.project, run.image),
            inputs=(
                RunInput(dataset_version=self.dv_id(run.train), role="train"),
                RunInput(dataset_version=self.dv_id(run.validation), role="validation"),
            ),
        )

    def dv_id(self, dataset: tuple[str, str]) -> str:
        return dataset_version_id(self.project, *dataset)

    def mv_id(self, number: int) -> str:
        return model_version_id(self.project, MODEL, str(number))
