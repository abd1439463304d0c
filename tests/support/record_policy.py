"""Events of a complete-records story: a project's policy, and runs, dataset versions and model
versions that hold every element or leave some out (`projection.completeness`)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.ingest.projection import EventMutations, LogStamp, project_event
from provgraph.schemas import (
    DatasetVersionCreated,
    Event,
    ModelVersionEvaluated,
    ModelVersionStatusChanged,
    ProjectPolicySet,
    RunStarted,
    dataset_version_id,
    environment_id,
    experiment_id,
    model_version_id,
)
from provgraph.schemas.events.data import (
    DatasetVersionCreatedPayload,
    DataSource,
    QualityCheck,
    QualityGates,
)
from provgraph.schemas.events.experiment import CodeRef, RunInput, RunStartedPayload
from provgraph.schemas.events.model import (
    ModelStatus,
    ModelVersionEvaluatedPayload,
    ModelVersionStatusChangedPayload,
)
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.records import ELEMENTS, RecordKind
from provgraph.schemas.storage import format_time

RUN_ELEMENTS = tuple(sorted(e for e in ELEMENTS[RecordKind.RUN] if e != "conclusion"))
"""What a run.started can leave out (its conclusion comes with run.completed)."""
EVERY_ELEMENT = {kind: tuple(sorted(ELEMENTS[kind])) for kind in RecordKind}


def logged(events: list[Event]) -> list[EventMutations]:
    """`events` folded as the log received them: one second apart, in the order given."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        project_event(e, LogStamp(format_time(start + timedelta(seconds=n))))
        for n, e in enumerate(events)
    ]


def make(cls: type[Event], project: str, payload: Any) -> Event:
    return cls.create(project=project, producer="https://e.com/t/1", actor="ci:t", payload=payload)


def policy(
    project: str,
    required: Mapping[RecordKind, Sequence[str]] | None = None,
    *,
    gates: bool = False,
) -> Event:
    """The project's policy requiring `required` (and passed gates with `gates`)."""
    payload = policy_payload(required, require_passed_gates=gates, reason="audit-ready")
    return make(ProjectPolicySet, project, payload)


def started(
    project: str,
    *,
    without: tuple[str, ...] = (),
    train: tuple[str, ...] = (),
    run: str | None = None,
) -> Event:
    """A run.started with every element but `without`; its inputs are the `train` dataset
    versions (role train), else one validation input."""
    inputs = [RunInput(dataset_version=d, role="train") for d in train] or [
        RunInput(dataset_version=dataset_version_id(project, "heldout", "v1"), role="validation")
    ]
    fields: dict[str, Any] = {
        "experiment": experiment_id(project, "warmup"),
        "run_number": 3,
        "code": CodeRef(repo="https://git.example.com/t.git", commit="0f3a9c1", dirty=False),
        "inputs": inputs,
        "environment": environment_id(project, "trainer-cu121"),
    }
    kept = {k: v for k, v in fields.items() if k not in without}
    payload = RunStartedPayload(run_id=run or str(uuid.uuid4()), **kept)
    return make(RunStarted, project, payload)


def version(
    project: str,
    name: str,
    *,
    without: tuple[str, ...] = (),
    checks: dict[str, bool] | None = None,
) -> Event:
    """A dataset.version.created of `name`@v1 with a licensed source (but `without`) and the
    quality `checks` (name -> passed; None: no gates)."""
    source = None
    if "source" not in without:
        licence = None if "licence" in without else "CC-BY-4.0"
        source = DataSource(uri="s3://raw/crawl", obtained_by="crawler 2.1", licence=licence)
    gates = None
    if checks is not None:
        found = tuple(QualityCheck(name=n, passed=p) for n, p in checks.items())
        gates = QualityGates(dedup_rate=0.02, checks=found)
    payload = DatasetVersionCreatedPayload(
        name=name,
        version="v1",
        storage_uri=f"s3://data/{name}/v1",
        source=source,
        quality_gates=gates,
    )
    return make(DatasetVersionCreated, project, payload)


def model_version(project: str, name: str = "tiny-lm") -> str:
    return model_version_id(project, name, "1.0")


def evaluated(project: str, name: str = "tiny-lm") -> Event:
    payload = ModelVersionEvaluatedPayload(
        evaluation_id=uuid.uuid4(),
        model_version=model_version(project, name),
        suite="mmlu",
        metrics={"acc": 0.61},
        passed=True,
    )
    return make(ModelVersionEvaluated, project, payload)


def approved(project: str, name: str = "tiny-lm") -> Event:
    payload = ModelVersionStatusChangedPayload(
        model_version=model_version(project, name),
        from_status=ModelStatus.CANDIDATE,
        to_status=ModelStatus.APPROVED,
    )
    return make(ModelVersionStatusChanged, project, payload)
