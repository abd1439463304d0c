"""The payloads of the SDK's helpers (resumes, evaluations, status changes), validated through
the contract's models before anything is emitted.

A refusal is an `ArgumentError` that names the helper's argument (``datasets[1]``, not the
payload's ``dataset_versions[1]``) with the contract's reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from provgraph.client.errors import ArgumentError
from provgraph.schemas import Payload, parse_id
from provgraph.schemas.events.checkpoint import CheckpointEvaluatedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.model import (
    ModelStatus,
    ModelVersionEvaluatedPayload,
    ModelVersionStatusChangedPayload,
)
from provgraph.schemas.events.run import RunAbortedPayload, RunResumedPayload
from provgraph.schemas.validation import field_error, format_path

P = TypeVar("P", bound=Payload)
EvaluationPayload = TypeVar(
    "EvaluationPayload", ModelVersionEvaluatedPayload, CheckpointEvaluatedPayload
)


def validated(
    model: type[P],
    data: Mapping[str, Any],
    *,
    helper: str,
    names: Mapping[str, str] | None = None,
    whole: str = "arguments",
) -> P:
    """`data` as a payload of `model`, or an `ArgumentError` of `helper`.

    `names` maps payload fields to the helper's arguments where they differ; a problem with
    the payload as a whole (a rule across fields) is reported under `whole`.
    """
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        renamed = names or {}
        problems: list[tuple[str, str]] = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            where = whole
            if loc and isinstance(loc[0], str):
                where = format_path((renamed.get(loc[0], loc[0]), *loc[1:]))
            problems.append((where, field_error(error).reason))
        raise ArgumentError(helper, problems) from None


def resumption(
    run_id: str,
    *,
    from_checkpoint: str | int,
    interruption_cause: str,
    steps_lost: int,
    resumed_at_step: int | None,
) -> RunResumedPayload:
    """The ``run.resumed`` payload; an int `from_checkpoint` is a step of this run
    (``checkpoint:<run_id>/<step>``, the id `Run.checkpoint` gives by default)."""
    checkpoint: Any = from_checkpoint
    step = isinstance(from_checkpoint, int) and not isinstance(from_checkpoint, bool)
    if step:
        checkpoint = f"checkpoint:{run_id}/{from_checkpoint}"
    data = {
        "run_id": run_id,
        "from_checkpoint": checkpoint,
        "interruption_cause": interruption_cause,
        "steps_lost": steps_lost,
        "resumed_at_step": resumed_at_step,
    }
    try:
        return validated(RunResumedPayload, data, helper="resume")
    except ArgumentError as exc:
        if not step or "run_id" not in exc.arguments:
            raise
        # A bad run_id makes the checkpoint id built from it bad too: name only the cause.
        kept = [p for p in exc.problems if p[0] != "from_checkpoint"]
        raise ArgumentError("resume", kept) from None


def pilot(run_id: str, scaled_from: str | None) -> str | None:
    """The id of the pilot run `scaled_from` (``run:<run_id>``, or a bare run id made into
    one), checked against the contract: a run id, not the run itself (`ArgumentError` of
    ``run``)."""
    if scaled_from is None:
        return None
    ref = scaled_from if ":" in scaled_from else f"run:{scaled_from}"
    data = {"run_id": run_id, "scaled_from": ref}
    payload = validated(RunStartedPayload, data, helper="run", whole="scaled_from")
    return payload.scaled_from


def evaluation(
    helper: str,
    evaluated: str,
    *,
    suite: str,
    passed: bool,
    datasets: Sequence[str],
    metrics: Mapping[str, Any] | None,
    suite_version: str | None,
    run: str | None,
    evaluation_id: uuid.UUID | str | None,
    model: type[EvaluationPayload] = ModelVersionEvaluatedPayload,  # type: ignore[assignment]
) -> EvaluationPayload:
    """The ``model.version.evaluated`` payload of the model version `evaluated`, or with
    `model` ``CheckpointEvaluatedPayload`` the ``checkpoint.evaluated`` one of the checkpoint
    `evaluated` (a fresh evaluation id unless one is given)."""
    target = "checkpoint" if model is CheckpointEvaluatedPayload else "model_version"
    data = {
        "evaluation_id": uuid.uuid4() if evaluation_id is None else evaluation_id,
        target: evaluated,
        "suite": suite,
        "suite_version": suite_version,
        "dataset_versions": datasets,
        "run": run,
        "metrics": {} if metrics is None else metrics,
        "passed": passed,
    }
    names = {"dataset_versions": "datasets"}
    return validated(model, data, helper=helper, names=names)


def status_change(
    helper: str,
    model_version: str,
    status: ModelStatus | str,
    *,
    project: str,
    from_status: ModelStatus | str | None,
    reason: str | None,
) -> ModelVersionStatusChangedPayload:
    """The ``model.version.status.changed`` payload of a version of `project` (the event's
    subject is the version, so it must belong to the events' project)."""
    data = {
        "model_version": model_version,
        "from_status": from_status,
        "to_status": status,
        "reason": reason,
    }
    names = {"to_status": "status"}
    payload = validated(
        ModelVersionStatusChangedPayload, data, helper=helper, names=names, whole="status"
    )
    owner = parse_id(payload.model_version).project
    if owner != project:
        reason = f"{model_version!r} belongs to project {owner!r}, not the events' {project!r}"
        raise ArgumentError(helper, [("model_version", f"{reason}: pass project={owner!r}")])
    return payload


def abort(
    run_id: str,
    *,
    reason: str,
    conclusion: str | None,
    final_metrics: Mapping[str, Any] | None,
    final_step: int | None,
) -> RunAbortedPayload:
    """The ``run.aborted`` payload of a run stopped from outside its process."""
    data = {
        "run_id": run_id,
        "reason": reason,
        "conclusion": conclusion,
        "final_metrics": {} if final_metrics is None else final_metrics,
        "final_step": final_step,
    }
    return validated(RunAbortedPayload, data, helper="abort_run")
