"""Project policy events: rules a project's admins choose for the project's own records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic.config import JsonDict

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text
from provgraph.schemas.ids import project_id
from provgraph.schemas.records import ELEMENTS, RecordKind

CONCLUSION = "conclusion"  # the run element v1's `require_conclusion` required


def _elements(kind: RecordKind) -> Any:
    """The field of a kind's required elements: each one of `ELEMENTS[kind]`, at most once."""
    known = sorted(ELEMENTS[kind])
    items: JsonDict = {"items": {"enum": list(known)}, "uniqueItems": True}
    return Field(default=(), max_length=len(known), json_schema_extra=items)


class RequiredElements(ContractModel):
    """The elements a project requires, per kind of record (`provgraph.schemas.records`); a
    kind left out requires nothing. Each list is kept sorted."""

    run: tuple[str, ...] = _elements(RecordKind.RUN)
    dataset_version: tuple[str, ...] = _elements(RecordKind.DATASET_VERSION)
    model_version: tuple[str, ...] = _elements(RecordKind.MODEL_VERSION)

    @field_validator("run", "dataset_version", "model_version")
    @classmethod
    def _known(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        kind = RecordKind(str(info.field_name))
        unknown = [n for n in names if n not in ELEMENTS[kind]]
        if unknown:
            raise ValueError(
                f"{', '.join(repr(n) for n in unknown)}: not an element of a {kind.value} "
                f"record (known: {', '.join(sorted(ELEMENTS[kind]))})"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"{kind.value} elements are named more than once")
        return tuple(sorted(names))

    def of(self, kind: RecordKind) -> tuple[str, ...]:
        """The sorted elements required of `kind`."""
        names: tuple[str, ...] = getattr(self, kind.value)
        return names


class _ProjectPayload(Payload):
    """A payload about the event's own project: its subject is ``project:<project>``."""

    def subject(self, project: str) -> str:
        return project_id(project)


class ProjectPolicySetPayload(_ProjectPayload):
    """The project's policy from now on (log order): every rule is restated, none is kept
    from an earlier event. Subject: ``project:<project>`` (the event's own project).

    `required`: per kind of record, the elements it must hold (`records.ELEMENTS`); an event
    that leaves one out is refused (ingest 422 ``record_incomplete``, dead-lettered by the
    projector with that reason; a run.completed without a required conclusion keeps its own
    reason, ``conclusion_required``). `require_passed_gates`: a run.started may train (an
    input of role ``train``) only on dataset versions whose quality checks were recorded and
    all passed.
    """

    required: RequiredElements = Field(default_factory=RequiredElements)
    require_passed_gates: bool = False
    reason: Text | None = None


class ProjectPolicySet(Event):
    """``project.policy.set`` v2 (current)."""

    event_type: Literal["project.policy.set"] = "project.policy.set"
    schema_version: Literal[2] = 2
    payload: ProjectPolicySetPayload


class ProjectPolicySetV1Payload(_ProjectPayload):
    """The v1 policy: `require_conclusion` alone (a ``run.completed`` without a conclusion
    is refused, reason ``conclusion_required``)."""

    require_conclusion: bool
    reason: Text | None = None


class ProjectPolicySetV1(Event):
    """``project.policy.set`` v1 (historical): still readable, upcast to v2 when read."""

    event_type: Literal["project.policy.set"] = "project.policy.set"
    schema_version: Literal[1] = 1
    payload: ProjectPolicySetV1Payload


def upcast_policy_set_v1(event: dict[str, Any]) -> dict[str, Any]:
    """v1 -> v2: ``require_conclusion: true`` is ``required: {run: [conclusion]}``; no gates."""
    payload = dict(event["payload"])
    conclusion = bool(payload.pop("require_conclusion", False))
    payload["required"] = {RecordKind.RUN.value: [CONCLUSION]} if conclusion else {}
    payload["require_passed_gates"] = False
    return {**event, "schema_version": 2, "payload": payload}


def policy_payload(
    required: Mapping[RecordKind, Sequence[str]] | None = None,
    *,
    require_conclusion: bool = False,
    require_passed_gates: bool = False,
    reason: str | None = None,
) -> ProjectPolicySetPayload:
    """The v2 payload requiring `required` (kind -> elements; a run's conclusion too with
    `require_conclusion`, as v1 said it). `ValueError` names an unknown element."""
    kinds = {kind.value: set(names) for kind, names in (required or {}).items()}
    if require_conclusion:
        kinds.setdefault(RecordKind.RUN.value, set()).add(CONCLUSION)
    return ProjectPolicySetPayload(
        required=RequiredElements.model_validate({k: sorted(v) for k, v in kinds.items()}),
        require_passed_gates=require_passed_gates,
        reason=reason,
    )
