"""What a run stands on: something that builds events with its defaults and emits them, and
the helpers built on that alone (evaluations, model version status changes, runs aborted from
outside)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar
from uuid import UUID

from provgraph.client import payloads
from provgraph.client.errors import ClientError
from provgraph.schemas import (
    CheckpointEvaluated,
    Event,
    ModelVersionEvaluated,
    ModelVersionStatusChanged,
    Payload,
    RunAborted,
)
from provgraph.schemas.events.checkpoint import CheckpointEvaluatedPayload
from provgraph.schemas.events.model import ModelStatus

E = TypeVar("E", bound=Event)


class EventSink(ABC):
    """Builds events with a default project, actor and producer, and emits them.

    `provgraph.client.Emitter` is the one that delivers; `provgraph.client.run.Run` needs only
    this much of it.
    """

    project: str | None
    actor: str | None
    producer: str

    @abstractmethod
    def emit(self, event: Event) -> None:
        """Hand `event` over for delivery."""

    def make(
        self,
        model: type[E],
        payload: Payload,
        *,
        project: str | None = None,
        correlation_id: UUID | None = None,
        causation_id: UUID | None = None,
    ) -> E:
        """Build an event of `model` with this sink's project, actor and producer."""
        return model.create(
            project=_require("project", project or self.project),
            producer=self.producer,
            actor=_require("actor", self.actor),
            payload=payload,
            correlation_id=correlation_id,
            causation_id=causation_id,
        )

    # -- helpers: each validates its arguments (`ArgumentError`) before it emits anything ----

    def evaluate(
        self,
        model_version: str,
        *,
        suite: str,
        passed: bool,
        datasets: Sequence[str] = (),
        metrics: Mapping[str, Any] | None = None,
        suite_version: str | None = None,
        run: str | None = None,
        evaluation_id: UUID | str | None = None,
        project: str | None = None,
    ) -> str:
        """Emit ``model.version.evaluated``: `model_version` (``model:<project>/<name>@<v>``)
        evaluated by `suite` on the dataset versions `datasets`, with its `metrics` and whether
        it `passed`; `run` (``run:<run_id>``) is the run that evaluated it, when there is one.
        Returns the evaluation id, ``evaluation:<uuid>`` (a fresh one unless given)."""
        payload = payloads.evaluation(
            "evaluate",
            model_version,
            suite=suite,
            passed=passed,
            datasets=datasets,
            metrics=metrics,
            suite_version=suite_version,
            run=run,
            evaluation_id=evaluation_id,
        )
        return self._send(ModelVersionEvaluated, payload, project)

    def evaluate_checkpoint(
        self,
        checkpoint: str,
        *,
        suite: str,
        passed: bool,
        datasets: Sequence[str] = (),
        metrics: Mapping[str, Any] | None = None,
        suite_version: str | None = None,
        run: str | None = None,
        evaluation_id: UUID | str | None = None,
        project: str | None = None,
    ) -> str:
        """Emit ``checkpoint.evaluated``: `checkpoint` (``checkpoint:<run_id>/<step>``)
        evaluated as `evaluate` evaluates a model version, registering no model version.
        Returns the evaluation id, ``evaluation:<uuid>``."""
        payload = payloads.evaluation(
            "evaluate_checkpoint",
            checkpoint,
            suite=suite,
            passed=passed,
            datasets=datasets,
            metrics=metrics,
            suite_version=suite_version,
            run=run,
            evaluation_id=evaluation_id,
            model=CheckpointEvaluatedPayload,
        )
        return self._send(CheckpointEvaluated, payload, project)

    def set_model_status(
        self,
        model_version: str,
        status: ModelStatus | str,
        *,
        from_status: ModelStatus | str | None = None,
        reason: str | None = None,
        project: str | None = None,
    ) -> str:
        """Emit ``model.version.status.changed``: `model_version` moves to `status`
        (``candidate``, ``approved``, ``delivered``, ``rejected``, ``retired``). With
        `from_status` the move is checked against the contract's allowed transitions.
        Returns the model version id."""
        return self._status_change(
            "set_model_status", model_version, status, from_status, reason, project
        )

    def approve_model(
        self,
        model_version: str,
        *,
        from_status: ModelStatus | str | None = None,
        reason: str | None = None,
        project: str | None = None,
    ) -> str:
        """`set_model_status` to ``approved``."""
        return self._status_change(
            "approve_model", model_version, ModelStatus.APPROVED, from_status, reason, project
        )

    def reject_model(
        self,
        model_version: str,
        *,
        from_status: ModelStatus | str | None = None,
        reason: str | None = None,
        project: str | None = None,
    ) -> str:
        """`set_model_status` to ``rejected``."""
        return self._status_change(
            "reject_model", model_version, ModelStatus.REJECTED, from_status, reason, project
        )

    def retire_model(
        self,
        model_version: str,
        *,
        from_status: ModelStatus | str | None = None,
        reason: str | None = None,
        project: str | None = None,
    ) -> str:
        """`set_model_status` to ``retired``."""
        return self._status_change(
            "retire_model", model_version, ModelStatus.RETIRED, from_status, reason, project
        )

    def abort_run(
        self,
        run_id: str,
        *,
        reason: str,
        conclusion: str | None = None,
        final_metrics: Mapping[str, Any] | None = None,
        final_step: int | None = None,
        project: str | None = None,
    ) -> str:
        """Emit ``run.aborted`` for a run stopped on purpose from outside its process (a
        person, a scheduler that killed the job); a run's own `with` block records its end
        itself. Returns the run id, ``run:<run_id>``."""
        payload = payloads.abort(
            run_id,
            reason=reason,
            conclusion=conclusion,
            final_metrics=final_metrics,
            final_step=final_step,
        )
        return self._send(RunAborted, payload, project)

    def _status_change(
        self,
        helper: str,
        model_version: str,
        status: ModelStatus | str,
        from_status: ModelStatus | str | None,
        reason: str | None,
        project: str | None,
    ) -> str:
        owner = _require("project", project or self.project)
        payload = payloads.status_change(
            helper, model_version, status, project=owner, from_status=from_status, reason=reason
        )
        return self._send(ModelVersionStatusChanged, payload, owner)

    def _send(self, model: type[Event], payload: Payload, project: str | None) -> str:
        event = self.make(model, payload, project=project)
        self.emit(event)
        return event.subject


def _require(what: str, value: str | None) -> str:
    if not value:
        env = {"project": "PROVGRAPH_PROJECT", "actor": "PROVGRAPH_ACTOR"}[what]
        raise ClientError(f"no {what}: pass {what}=... or set {env}")
    return value
