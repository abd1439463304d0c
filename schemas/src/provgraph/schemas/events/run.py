"""Run lifecycle events after the start: metrics, outcome, resumption."""

from __future__ import annotations

from typing import Annotated, Literal

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
    """A run finished normally; `conclusion` (what was learned) is required."""

    conclusion: Text
    final_metrics: JsonMap = Field(default_factory=dict)
    final_step: Count | None = None


class RunCompleted(Event):
    """``run.completed`` v1."""

    event_type: Literal["run.completed"] = "run.completed"
    schema_version: Literal[1] = 1
    payload: RunCompletedPayload


class RunError(ContractModel):
    """The error that ended a run."""

    type: str = Field(min_length=1, max_length=256)
    message: str = Field(max_length=16384)
    traceback: str | None = Field(default=None, max_length=65536)


class RunFailedPayload(RunPayload):
    """A run failed; `conclusion` and `error` are required."""

    conclusion: Text
    error: RunError
    final_metrics: JsonMap = Field(default_factory=dict)
    final_step: Count | None = None


class RunFailed(Event):
    """``run.failed`` v1."""

    event_type: Literal["run.failed"] = "run.failed"
    schema_version: Literal[1] = 1
    payload: RunFailedPayload


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
