"""The run context manager: run.started (or run.resumed) on enter, run.completed / run.failed
on exit."""

from __future__ import annotations

import logging
import sys
import traceback
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from provgraph.client import environment as env
from provgraph.client import payloads
from provgraph.client.checkpointing import CheckpointSave
from provgraph.client.errors import ClientError
from provgraph.client.metrics import MetricsBuffer
from provgraph.client.sink import EventSink
from provgraph.schemas import (
    CheckpointEvaluated,
    CheckpointSaved,
    EnvironmentSnapshotRecorded,
    Event,
    ModelVersionEvaluated,
    ModelVersionRegistered,
    RunAborted,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunResumed,
    RunStarted,
    experiment_id,
)
from provgraph.schemas import run_id as run_subject
from provgraph.schemas.envelope import Payload
from provgraph.schemas.events.checkpoint import CheckpointEvaluatedPayload, CheckpointSavedPayload
from provgraph.schemas.events.experiment import CodeRef, Resources, RunInput, RunStartedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload, ValidationResult
from provgraph.schemas.events.run import (
    RunAbortedPayload,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
    RunResumedPayload,
)

log = logging.getLogger(__name__)

InputSpec = RunInput | tuple[str, str] | Mapping[str, str] | str
"""An input: a RunInput, ``(dataset_version_id, role)``, a dict, or an id (role ``train``)."""


class Run:
    """One run of training or evaluation, as a context manager with lineage helpers.

    On enter it records the environment (unless ``environment=False``; a string is used as
    an existing environment id) and emits ``run.started``. On exit it emits the buffered
    metrics, then ``run.completed`` with `conclusion` (set it before leaving the block; none
    is made up when it is not set),
    ``run.failed`` with the exception (re-raised), or ``run.aborted`` on KeyboardInterrupt
    and other non-``Exception`` exits. Every event of the run shares one correlation_id.

    `scaled_from` names the pilot this run scales up (a run id or a `Run`; checked here,
    before anything is emitted: `ArgumentError`).

    `Run.resume` continues a run that was interrupted: on enter it emits ``run.resumed``
    instead (no environment snapshot, no second ``run.started``), then it is the same.
    """

    def __init__(
        self,
        emitter: EventSink,
        *,
        project: str | None = None,
        run_id: str | None = None,
        experiment: str | None = None,
        run_number: int | None = None,
        name: str | None = None,
        params: Mapping[str, Any] | None = None,
        inputs: Sequence[InputSpec] = (),
        resources: Resources | Mapping[str, Any] | None = None,
        base_model: str | None = None,
        resumed_from: str | None = None,
        scaled_from: str | Run | None = None,
        environment: str | bool = True,
        code: CodeRef | bool = True,
        code_dir: str | Path | None = None,
        metrics_batch: int = 500,
        metrics_interval_s: float = 10.0,
    ) -> None:
        self.emitter = emitter
        if not (project or emitter.project):
            raise ClientError("no project: pass project=... or set PROVGRAPH_PROJECT")
        self.project: str = project or emitter.project or ""
        self.run_id = run_id or str(uuid.uuid4())
        self.conclusion: str | None = None
        self.final_metrics: dict[str, Any] = {}
        self.correlation_id = uuid.uuid4()
        self._experiment = experiment
        self._start: dict[str, Any] = {
            "run_id": self.run_id,
            "run_number": run_number,
            "name": name,
            "params": dict(params or {}),
            "inputs": tuple(_input(i) for i in inputs),
            "resources": resources,
            "base_model": base_model,
            "resumed_from": resumed_from,
            "scaled_from": payloads.pilot(
                self.run_id, scaled_from.subject if isinstance(scaled_from, Run) else scaled_from
            ),
        }
        self._environment, self._code = environment, code
        self._code_dir = Path(code_dir) if code_dir else None
        self._metrics = MetricsBuffer(metrics_batch, metrics_interval_s)
        self._last_step: int | None = None
        self._started: Event | None = None
        self._resumed: RunResumedPayload | None = None

    @classmethod
    def resume(
        cls,
        emitter: EventSink,
        run_id: str,
        *,
        from_checkpoint: str | int,
        interruption_cause: str,
        steps_lost: int,
        resumed_at_step: int | None = None,
        project: str | None = None,
        metrics_batch: int = 500,
        metrics_interval_s: float = 10.0,
    ) -> Run:
        """A context manager continuing run `run_id` after an interruption: on enter it emits
        ``run.resumed`` (from the checkpoint `from_checkpoint`, a checkpoint id or a step of
        this run; the cause; the steps lost since that checkpoint; the step training goes on
        from), then it behaves as any run (metrics, checkpoints, its end on exit).

        The arguments are checked here, before anything is emitted (`ArgumentError`).
        """
        payload = payloads.resumption(
            run_id,
            from_checkpoint=from_checkpoint,
            interruption_cause=interruption_cause,
            steps_lost=steps_lost,
            resumed_at_step=resumed_at_step,
        )
        run = cls(
            emitter,
            project=project,
            run_id=run_id,
            environment=False,
            code=False,
            metrics_batch=metrics_batch,
            metrics_interval_s=metrics_interval_s,
        )
        run._resumed = payload
        return run

    @property
    def subject(self) -> str:
        """``run:<run_id>``."""
        return run_subject(self.run_id)

    def __enter__(self) -> Self:
        if self._started is not None:
            raise RuntimeError("a Run can be entered once")
        if self._resumed is not None:
            self._started = self._emit(RunResumed, self._resumed)
            if self._resumed.resumed_at_step is not None:
                self._saw_step(self._resumed.resumed_at_step)
            return self
        environment_ref = self._record_environment()
        payload = RunStartedPayload.model_validate(
            {
                **self._start,
                "experiment": self._experiment_id(),
                "code": self._code_ref(),
                "environment": environment_ref,
            }
        )
        self._started = self._emit(RunStarted, payload)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.flush_metrics()
            self._emit_outcome(exc)
        except Exception:
            if exc is None:
                raise
            log.exception("provgraph: could not record the end of run %s", self.run_id)

    # -- helpers for the training loop -------------------------------------------------------

    def log_metrics(self, step: int, /, **metrics: float) -> None:
        """Buffer metric values at `step`; they leave in batches as ``run.metrics.logged``.

        Values that are not finite (NaN, inf) are not JSON and are skipped with a warning.
        """
        self._metrics.add(step, metrics)
        self._saw_step(step)
        if self._metrics.due():
            self.flush_metrics()

    def flush_metrics(self) -> None:
        """Emit the buffered metric points now."""
        for points in self._metrics.take():
            self._emit(RunMetricsLogged, RunMetricsLoggedPayload(run_id=self.run_id, points=points))

    def checkpoint(
        self,
        step: int,
        uri: str,
        *,
        checksum: str | None = None,
        epoch: int | None = None,
        size_bytes: int | None = None,
        format: str | None = None,
        metrics: Mapping[str, Any] | None = None,
        checkpoint_id: str | None = None,
        save_seconds: float | None = None,
    ) -> str:
        """Emit ``checkpoint.saved``; returns the checkpoint id (for `register_model`).

        `save_seconds` is how long writing it took; `saving_checkpoint` measures it."""
        optional: dict[str, Any] = {"checksum": checksum, "epoch": epoch, "size_bytes": size_bytes}
        optional |= {"format": format, "checkpoint_id": checkpoint_id, "save_seconds": save_seconds}
        payload = CheckpointSavedPayload.model_validate(
            {"run_id": self.run_id, "step": step, "uri": uri, "metrics": dict(metrics or {})}
            | {k: v for k, v in optional.items() if v is not None}
        )
        self._saw_step(step)
        return self._emit(CheckpointSaved, payload).subject

    def saving_checkpoint(self, step: int, uri: str, **options: Any) -> CheckpointSave:
        """A context manager timing the save written inside it: on a normal exit it emits
        ``checkpoint.saved`` with ``save_seconds`` (options as `checkpoint`'s)."""
        return CheckpointSave(self.checkpoint, step, uri, dict(options))

    def register_model(
        self,
        name: str,
        version: str,
        *,
        checkpoint: str | None = None,
        uri: str | None = None,
        checksum: str | None = None,
        validation: Sequence[ValidationResult | Mapping[str, Any]] = (),
        fit_for: Sequence[str] = (),
        description: str | None = None,
    ) -> str:
        """Emit ``model.version.registered`` produced by this run; returns the version id."""
        payload = ModelVersionRegisteredPayload.model_validate(
            {
                "name": name,
                "version": version,
                "produced_by_run": self.subject,
                "checkpoint": checkpoint,
                "uri": uri,
                "checksum": checksum,
                "validation": tuple(validation),
                "fit_for": tuple(fit_for),
                "description": description,
            }
        )
        return self._emit(ModelVersionRegistered, payload).subject

    def evaluate(
        self,
        model_version: str,
        *,
        suite: str,
        passed: bool,
        datasets: Sequence[str] = (),
        metrics: Mapping[str, Any] | None = None,
        suite_version: str | None = None,
        evaluation_id: uuid.UUID | str | None = None,
    ) -> str:
        """Emit ``model.version.evaluated`` done by this run (as `EventSink.evaluate`);
        returns the evaluation id."""
        payload = payloads.evaluation(
            "evaluate",
            model_version,
            suite=suite,
            passed=passed,
            datasets=datasets,
            metrics=metrics,
            suite_version=suite_version,
            run=self.subject,
            evaluation_id=evaluation_id,
        )
        return self._emit(ModelVersionEvaluated, payload).subject

    def evaluate_checkpoint(
        self,
        checkpoint: str,
        *,
        suite: str,
        passed: bool,
        datasets: Sequence[str] = (),
        metrics: Mapping[str, Any] | None = None,
        suite_version: str | None = None,
        evaluation_id: uuid.UUID | str | None = None,
    ) -> str:
        """Emit ``checkpoint.evaluated`` done by this run (as `EventSink.evaluate_checkpoint`):
        a checkpoint evaluated without registering a model version; returns the evaluation
        id."""
        payload = payloads.evaluation(
            "evaluate_checkpoint",
            checkpoint,
            suite=suite,
            passed=passed,
            datasets=datasets,
            metrics=metrics,
            suite_version=suite_version,
            run=self.subject,
            evaluation_id=evaluation_id,
            model=CheckpointEvaluatedPayload,
        )
        return self._emit(CheckpointEvaluated, payload).subject

    # -- internals -------------------------------------------------------------------------

    def _emit(self, model: type[Event], payload: Payload) -> Event:
        causation = self._started.event_id if self._started is not None else None
        event = self.emitter.make(
            model,
            payload,
            project=self.project,
            correlation_id=self.correlation_id,
            causation_id=causation,
        )
        self.emitter.emit(event)
        return event

    def _emit_outcome(self, exc: BaseException | None) -> None:
        common: dict[str, Any] = {"run_id": self.run_id, "final_metrics": self.final_metrics}
        common["final_step"] = self._last_step
        if exc is None:
            # No default: a run without a written conclusion is shown as "conclusion missing",
            # and a project may refuse it (`project.policy.set` require_conclusion).
            self._emit(
                RunCompleted,
                RunCompletedPayload.model_validate(common | {"conclusion": self.conclusion}),
            )
        elif isinstance(exc, Exception):
            self._emit(RunFailed, _failed(common, exc, self.conclusion))
        else:
            reason = f"interrupted: {type(exc).__name__}"
            payload = {"reason": reason, "conclusion": self.conclusion}
            self._emit(RunAborted, RunAbortedPayload.model_validate(common | payload))

    def _record_environment(self) -> str | None:
        if isinstance(self._environment, str):
            return self._environment
        if not self._environment:
            return None
        try:
            snapshot = env.capture(self._code_dir, _entrypoint())
            event = self._emit(EnvironmentSnapshotRecorded, env.snapshot_payload(snapshot))
        except Exception:  # lineage must not stop the job: run on without the snapshot
            log.warning("provgraph: environment snapshot failed", exc_info=True)
            return None
        if self._code is True and snapshot.code is not None:
            self._code = snapshot.code
        return event.subject

    def _code_ref(self) -> CodeRef | None:
        if self._code is True:
            self._code = env.git_code_ref(self._code_dir, _entrypoint()) or False
        return self._code if isinstance(self._code, CodeRef) else None

    def _experiment_id(self) -> str | None:
        key = self._experiment
        if key is None or key.startswith("experiment:"):
            return key
        return experiment_id(self.project, key)

    def _saw_step(self, step: int) -> None:
        self._last_step = step if self._last_step is None else max(self._last_step, step)


def _input(spec: InputSpec) -> RunInput:
    if isinstance(spec, RunInput):
        return spec
    if isinstance(spec, str):
        return RunInput.model_validate({"dataset_version": spec, "role": "train"})
    if isinstance(spec, tuple):
        return RunInput.model_validate({"dataset_version": spec[0], "role": spec[1]})
    return RunInput.model_validate(dict(spec))


def _failed(common: dict[str, Any], exc: Exception, conclusion: str | None) -> RunFailedPayload:
    message = str(exc)
    text = "".join(traceback.format_exception(exc))
    error = RunError(type=type(exc).__qualname__, message=message[:16384], traceback=text[-65536:])
    # The error is recorded as such; the conclusion is what a person wrote, or nothing.
    return RunFailedPayload.model_validate(common | {"conclusion": conclusion, "error": error})


def _entrypoint() -> str | None:
    return sys.argv[0] or None if sys.argv else None
