"""Run lifecycle events after the start: metrics, outcome, resumption."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text, UtcDatetime
from provgraph.schemas.events.common import Count, Finite, JsonMap, MapKey
from provgraph.schemas.ids import CheckpointId, RunKey, run_id

MAX_METRIC_POINTS = 1000
"""Most points one ``run.metrics.logged`` event may carry; batch larger series over events."""


class RunPayload(Payload):
    """Base of payloads about an existing run. Subject: ``run:<run_id>``."""

    run_id: RunKey

    def subject(self, project: str) -> str:
        return run_id(self.run_id)


class MetricPoint(ContractModel):
    """One value of a named series at a step."""

    name: MapKey  # a property name: `metric.<name>`
    step: Count
    value: Finite
    timestamp: UtcDatetime | None = None


class RunMetricsLoggedPayload(RunPayload):
    """A batch of step-indexed metric points (at most `MAX_METRIC_POINTS`)."""

    points: Annotated[tuple[MetricPoint, ...], Field(min_length=1, max_length=MAX_METRIC_POINTS)]


class RunMetricsLogged(Event):
    """``run.metrics.logged`` v1."""

    event_type: Literal["run.metrics.logged"] = "run.metrics.logged"
    schema_version: Literal[1] = 1
    payload: RunMetricsLoggedPayload


class RunCompletedPayload(RunPayload):
    """A run finished normally, with what was learned (`conclusion`) when it was written; a
    project may require it (`project.policy.set` with ``require_conclusion``)."""

    conclusion: Text | None = None
    final_metrics: JsonMap = Field(default_factory=dict)
    final_step: Count | None = None


class RunCompleted(Event):
    """``run.completed`` v2 (current): the conclusion is optional."""

    event_type: Literal["run.completed"] = "run.completed"
    schema_version: Literal[2] = 2
    payload: RunCompletedPayload


class RunCompletedV1Payload(RunCompletedPayload):
    """The v1 payload: `conclusion` required."""

    conclusion: Text  # the v2 fields, in their order, with this one required


class RunCompletedV1(Event):
    """``run.completed`` v1 (historical): still readable, upcast to v2 when read."""

    event_type: Literal["run.completed"] = "run.completed"
    schema_version: Literal[1] = 1
    payload: RunCompletedV1Payload


def upcast_to_v2(event: dict[str, Any]) -> dict[str, Any]:
    """``run.completed`` / ``run.failed`` v1 -> v2: the same payload (v2 only made the
    conclusion optional)."""
    return {**event, "schema_version": 2}


class RunError(ContractModel):
    """The error that ended a run."""

    type: str = Field(min_length=1, max_length=256)
    message: str = Field(max_length=16384)
    traceback: str | None = Field(default=None, max_length=65536)


class RunFailedPayload(RunPayload):
    """A run failed; `error` is required, the `conclusion` written when there is one."""

    conclusion: Text | None = None
    error: RunError
    final_metrics: JsonMap = Field(default_factory=dict)
    final_step: Count | None = None


class RunFailed(Event):
    """``run.failed`` v2 (current): the conclusion is optional."""

    event_type: Literal["run.failed"] = "run.failed"
    schema_version: Literal[2] = 2
    payload: RunFailedPayload


class RunFailedV1Payload(RunFailedPayload):
    """The v1 payload: `conclusion` and `error` required."""

    conclusion: Text  # the v2 fields, in their order, with this one required


class RunFailedV1(Event):
    """``run.failed`` v1 (historical): still readable, upcast to v2 when read."""

    event_type: Literal["run.failed"] = "run.failed"
    schema_version: Literal[1] = 1
    payload: RunFailedV1Payload


class RunAbortedPayload(RunPayload):
    """A run was stopped on purpose (by a person or a scheduler)."""

    reason: Text
    conclusion: Text | None = None
    final_metrics: JsonMap = Field(default_factory=dict)
    final_step: Count | None = None


class RunAborted(Event):
    """``run.aborted`` v1."""

    event_type: Literal["run.aborted"] = "run.aborted"
    schema_version: Literal[1] = 1
    payload: RunAbortedPayload


class RunResumedPayload(RunPayload):
    """A run continued from a checkpoint after an interruption."""

    from_checkpoint: CheckpointId
    interruption_cause: Text
    steps_lost: Count
    resumed_at_step: Count | None = None


class RunResumed(Event):
    """``run.resumed`` v1."""

    event_type: Literal["run.resumed"] = "run.resumed"
    schema_version: Literal[1] = 1
    payload: RunResumedPayload
