"""After delivery: deployments, what they serve, and feedback from production."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text, Uri, UtcDatetime
from provgraph.schemas.events.common import JsonMap, Ratio
from provgraph.schemas.ids import EnvironmentId, ModelVersionId, Name, deployment_id


class ServedModel(ContractModel):
    """A model version served by a deployment and its share of traffic (0..1)."""

    model_version: ModelVersionId
    traffic_share: Ratio = 1.0


Serves = Annotated[tuple[ServedModel, ...], Field(min_length=1, max_length=64)]


def _check_shares(serves: tuple[ServedModel, ...] | None) -> None:
    total = sum(s.traffic_share for s in serves or ())
    if total > 1.0 + 1e-9:
        raise ValueError(f"traffic shares sum to {total:g}, more than 1")


class DeploymentPayload(Payload):
    """Base of deployment payloads. Subject: ``deployment:<project>/<name>``."""

    name: Name

    def subject(self, project: str) -> str:
        return deployment_id(project, self.name)


EnvironmentName = Annotated[str, Field(min_length=1, max_length=128)]
"""The environment a deployment runs in (``production``, ...)."""


class DeploymentSetupPayload(DeploymentPayload):
    """Base of the payloads that say how a deployment is set up: where it answers, in which
    environment, serving what (traffic shares summing to at most 1)."""

    endpoint: Uri | None = None
    environment: EnvironmentName | None = None
    serves: Serves | None = None
    runtime_environment: EnvironmentId | None = None

    @model_validator(mode="after")
    def _shares(self) -> Self:
        _check_shares(self.serves)
        return self


class DeploymentCreatedPayload(DeploymentSetupPayload):
    """A deployment is created: where it answers, in which environment, serving what."""

    # The setup's fields, in their order, with these three required.
    endpoint: Uri
    environment: EnvironmentName
    serves: Serves


class DeploymentCreated(Event):
    """``deployment.created`` v1."""

    event_type: Literal["deployment.created"] = "deployment.created"
    schema_version: Literal[1] = 1
    payload: DeploymentCreatedPayload


class DeploymentUpdatedPayload(DeploymentSetupPayload):
    """A deployment changes; given fields replace the old ones (``serves`` as a whole)."""

    note: Text | None = None


class DeploymentUpdated(Event):
    """``deployment.updated`` v1."""

    event_type: Literal["deployment.updated"] = "deployment.updated"
    schema_version: Literal[1] = 1
    payload: DeploymentUpdatedPayload


class DeploymentRetiredPayload(DeploymentPayload):
    """A deployment is shut down."""

    reason: Text


class DeploymentRetired(Event):
    """``deployment.retired`` v1."""

    event_type: Literal["deployment.retired"] = "deployment.retired"
    schema_version: Literal[1] = 1
    payload: DeploymentRetiredPayload


class Severity(StrEnum):
    """Incident severity."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Incident(ContractModel):
    """A production incident attributed to a deployment."""

    summary: Text
    severity: Severity
    reference: Uri | None = None
    occurred_at: UtcDatetime | None = None


class DeploymentFeedbackRecordedPayload(DeploymentPayload):
    """Post-deployment metrics and incidents over a time window."""

    model_version: ModelVersionId | None = None
    window_start: UtcDatetime | None = None
    window_end: UtcDatetime | None = None
    metrics: JsonMap = Field(default_factory=dict)
    incidents: tuple[Incident, ...] = ()


class DeploymentFeedbackRecorded(Event):
    """``deployment.feedback.recorded`` v1."""

    event_type: Literal["deployment.feedback.recorded"] = "deployment.feedback.recorded"
    schema_version: Literal[1] = 1
    payload: DeploymentFeedbackRecordedPayload
