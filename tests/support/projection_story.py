"""One run's events for the projection-semantics tests, in a project and with event ids of the
test alone, so that the same story can be written into a shared Neo4j by any number of tests."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from uuid import UUID

from provgraph.schemas import (
    AccessGranted,
    AccessRevoked,
    CheckpointSaved,
    DeploymentCreated,
    DeploymentUpdated,
    EntityDeleted,
    Event,
    Payload,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunStarted,
    checkpoint_id,
    dataset_version_id,
    deployment_id,
    model_version_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload
from provgraph.schemas.events.deployment import (
    DeploymentCreatedPayload,
    DeploymentUpdatedPayload,
    ServedModel,
)
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.governance import (
    AccessGrantedPayload,
    AccessRevokedPayload,
    AccessRole,
    EntityDeletedPayload,
)
from provgraph.schemas.events.run import (
    MetricPoint,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
)

T0 = datetime(2024, 5, 1, tzinfo=UTC)


class Story:
    """Events about run `<project>-r1`; `n` numbers events, and a larger `n` is a larger id."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.run_key = f"{project}-r1"  # run ids are global: the project keeps tests apart
        self.run = run_id(self.run_key)
        self.checkpoint = checkpoint_id(self.run_key, 10)
        self.dv = dataset_version_id(project, "web", "v1")
        self.mv1 = model_version_id(project, "m", "1")
        self.mv2 = model_version_id(project, "m", "2")
        self.deployment = deployment_id(project, "d")
        # The low 16 bits number the events, so ids keep the order of `n` (tie-break tests).
        self._ids = uuid.uuid4().int & ~0xFFFF

    def event_id(self, n: int) -> UUID:
        return UUID(int=self._ids + n)

    def ev(self, cls: type[Event], payload: Payload, minute: int = 0, n: int = 1) -> Event:
        return cls.create(
            project=self.project,
            producer="https://t/1",
            actor="user:t",
            payload=payload,
            occurred_at=T0 + timedelta(minutes=minute),
            event_id=self.event_id(n),
        )

    def started(self, minute: int = 0, n: int = 1, params: bool = True) -> Event:
        payload = RunStartedPayload(
            run_id=self.run_key,
            params={"lr": 0.1, "opt": {"name": "adam"}} if params else {},
            inputs=(RunInput(dataset_version=self.dv, role="train"),),
        )
        return self.ev(RunStarted, payload, minute, n)

    def completed(self, minute: int, n: int) -> Event:
        payload = RunCompletedPayload(run_id=self.run_key, conclusion=f"c{n}")
        return self.ev(RunCompleted, payload, minute, n)

    def failed(self, minute: int, n: int) -> Event:
        error = RunError(type="E", message="m")
        payload = RunFailedPayload(run_id=self.run_key, conclusion="f", error=error)
        return self.ev(RunFailed, payload, minute, n)

    def checkpoint_saved(self, minute: int, n: int) -> Event:
        payload = CheckpointSavedPayload(run_id=self.run_key, step=10, uri="s3://b/c")
        return self.ev(CheckpointSaved, payload, minute, n)

    def deleted(self, minute: int, n: int) -> Event:
        payload = EntityDeletedPayload(entity=self.run, reason="gdpr")
        return self.ev(EntityDeleted, payload, minute, n)

    def logged(self, step: int, value: float, n: int) -> Event:
        points = (MetricPoint(name="loss", step=step, value=value),)
        payload = RunMetricsLoggedPayload(run_id=self.run_key, points=points)
        return self.ev(RunMetricsLogged, payload, n, n)

    def series(self, minute: int, n: int, *points: tuple[str, int, float]) -> Event:
        """A batch of metric points (name, step, value) of the run."""
        listed = tuple(MetricPoint(name=name, step=step, value=v) for name, step, v in points)
        payload = RunMetricsLoggedPayload(run_id=self.run_key, points=listed)
        return self.ev(RunMetricsLogged, payload, minute, n)

    def deployment_created(self, minute: int, n: int) -> Event:
        payload = DeploymentCreatedPayload(
            name="d",
            endpoint="https://x/y",
            environment="prod",
            serves=(ServedModel(model_version=self.mv1),),
        )
        return self.ev(DeploymentCreated, payload, minute, n)

    def deployment_updated(self, minute: int, n: int) -> Event:
        payload = DeploymentUpdatedPayload(name="d", serves=(ServedModel(model_version=self.mv2),))
        return self.ev(DeploymentUpdated, payload, minute, n)

    def granted(self, minute: int, n: int, principal: str = "user:carol") -> Event:
        payload = AccessGrantedPayload(
            principal=principal, project=self.project, role=AccessRole.READER
        )
        return self.ev(AccessGranted, payload, minute, n)

    def revoked(self, minute: int, n: int, principal: str = "user:carol") -> Event:
        payload = AccessRevokedPayload(
            principal=principal, project=self.project, role=AccessRole.READER
        )
        return self.ev(AccessRevoked, payload, minute, n)
