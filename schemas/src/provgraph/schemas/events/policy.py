"""Project policy events: rules a project's admins choose for the project's own records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, WithJsonSchema, field_validator
from pydantic.config import JsonDict

from provgraph.schemas.conventions import (
    MAX_ALIASES,
    MAX_ROOTS,
    MAX_TEMPLATE_CHARS,
    NamedKind,
    alias_problem,
    template_pattern,
    template_problem,
)
from provgraph.schemas.envelope import ContractModel, Event, Payload, Text
from provgraph.schemas.events.common import StorageUri
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


def _template_schema(kind: NamedKind) -> JsonDict:
    """The JSON Schema of a template of `kind` (`NameRules` checks it with the same pattern)."""
    schema: JsonDict = {"type": "string", "minLength": 1, "maxLength": MAX_TEMPLATE_CHARS}
    schema["pattern"] = template_pattern(kind)
    return schema


RunTemplate = Annotated[str, WithJsonSchema(_template_schema(NamedKind.RUN))]
ModelVersionTemplate = Annotated[str, WithJsonSchema(_template_schema(NamedKind.MODEL_VERSION))]
DatasetVersionTemplate = Annotated[str, WithJsonSchema(_template_schema(NamedKind.DATASET_VERSION))]
ImageTemplate = Annotated[str, WithJsonSchema(_template_schema(NamedKind.IMAGE))]


class NameRules(ContractModel):
    """A naming rule per kind of record (`provgraph.schemas.conventions`): a template whose
    placeholders name the record's own facts, ``*`` any text. A kind left out has no rule."""

    run: RunTemplate | None = None
    model_version: ModelVersionTemplate | None = None
    dataset_version: DatasetVersionTemplate | None = None
    image: ImageTemplate | None = None

    @field_validator("run", "model_version", "dataset_version", "image")
    @classmethod
    def _check(cls, template: str | None, info: ValidationInfo) -> str | None:
        kind = NamedKind(str(info.field_name))
        problem = None if template is None else template_problem(kind, template)
        if problem:
            raise ValueError(f"{kind.value} naming rule {template!r}: {problem}")
        return template

    def of(self, kind: NamedKind) -> str | None:
        """The template of `kind`, if there is one."""
        template: str | None = getattr(self, kind.value)
        return template

    def stated(self) -> dict[str, str]:
        """kind -> template, for the kinds with a rule."""
        return {k.value: t for k in NamedKind if (t := self.of(k)) is not None}


MetricName = Annotated[str, Field(min_length=1, max_length=256)]


class ProjectPolicySetPayload(_ProjectPayload):
    """The project's policy from now on (log order): every rule is restated, none is kept
    from an earlier event. Subject: ``project:<project>`` (the event's own project).

    `required`: per kind of record, the elements it must hold (`records.ELEMENTS`); an event
    that leaves one out is refused (ingest 422 ``record_incomplete``, dead-lettered by the
    projector with that reason; a run.completed without a required conclusion keeps its own
    reason, ``conclusion_required``). `require_passed_gates`: a run.started may train (an
    input of role ``train``) only on dataset versions whose quality checks were recorded and
    all passed.

    The project's conventions (`provgraph.schemas.conventions`): `metric_aliases` (alias ->
    canonical name: compare, best and effects read a metric under its canonical name;
    `lint-metrics` lists the names that differ only in spelling); `names` (a naming rule per
    kind; `lint-names` lists what breaks them; with `require_names`, a new run, model
    version, dataset version or image that breaks its rule is refused, 422
    ``name_breaks_rule``); `storage_roots` (URI prefixes outputs belong under; `collisions`
    lists outputs out of place and URIs written by runs of two experiments; with
    `require_places`, an output out of place is refused, 422 ``place_refused``, and one at a
    URI another experiment's run wrote, 409 ``place_taken``).
    """

    required: RequiredElements = Field(default_factory=RequiredElements)
    require_passed_gates: bool = False
    metric_aliases: Annotated[dict[MetricName, MetricName], Field(max_length=MAX_ALIASES)] = Field(
        default_factory=dict
    )
    names: NameRules = Field(default_factory=NameRules)
    require_names: bool = False
    storage_roots: Annotated[
        tuple[StorageUri, ...], Field(max_length=MAX_ROOTS, json_schema_extra={"uniqueItems": True})
    ] = ()
    require_places: bool = False
    reason: Text | None = None

    @field_validator("metric_aliases")
    @classmethod
    def _aliases(cls, aliases: dict[str, str]) -> dict[str, str]:
        problem = alias_problem(aliases)
        if problem:
            raise ValueError(f"metric_aliases: {problem}")
        return dict(sorted(aliases.items()))

    @field_validator("storage_roots")
    @classmethod
    def _roots(cls, roots: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(roots)) != len(roots):
            raise ValueError("storage_roots: a root is named more than once")
        return tuple(sorted(roots))


class ProjectPolicySet(Event):
    """``project.policy.set`` v3 (current)."""

    event_type: Literal["project.policy.set"] = "project.policy.set"
    schema_version: Literal[3] = 3
    payload: ProjectPolicySetPayload


class ProjectPolicySetV2Payload(_ProjectPayload):
    """The v2 policy: required elements and the gates rule, no conventions."""

    required: RequiredElements = Field(default_factory=RequiredElements)
    require_passed_gates: bool = False
    reason: Text | None = None


class ProjectPolicySetV2(Event):
    """``project.policy.set`` v2 (historical): still readable, upcast to v3 when read."""

    event_type: Literal["project.policy.set"] = "project.policy.set"
    schema_version: Literal[2] = 2
    payload: ProjectPolicySetV2Payload


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


def upcast_policy_set_v2(event: dict[str, Any]) -> dict[str, Any]:
    """v2 -> v3: no conventions declared (every v3 field keeps its default)."""
    return {**event, "schema_version": 3}


def policy_payload(
    required: Mapping[RecordKind, Sequence[str]] | None = None,
    *,
    require_conclusion: bool = False,
    require_passed_gates: bool = False,
    metric_aliases: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
    require_names: bool = False,
    storage_roots: Sequence[str] = (),
    require_places: bool = False,
    reason: str | None = None,
) -> ProjectPolicySetPayload:
    """The current payload requiring `required` (kind -> elements; a run's conclusion too
    with `require_conclusion`, as v1 said it), with the conventions given (`names`: kind ->
    template). `ValueError` (pydantic's) names an unknown element, fact or kind."""
    kinds = {kind.value: set(names) for kind, names in (required or {}).items()}
    if require_conclusion:
        kinds.setdefault(RecordKind.RUN.value, set()).add(CONCLUSION)
    return ProjectPolicySetPayload(
        required=RequiredElements.model_validate({k: sorted(v) for k, v in kinds.items()}),
        require_passed_gates=require_passed_gates,
        metric_aliases=dict(metric_aliases or {}),
        names=NameRules.model_validate(dict(names or {})),
        require_names=require_names,
        storage_roots=tuple(storage_roots),
        require_places=require_places,
        reason=reason,
    )
