"""Complete records, decided from mutations alone (no I/O): the elements a project's policy
requires of each kind of record, and the quality gates a run may train on.

``project.policy.set`` names, per kind (`provgraph.schemas.records.ELEMENTS`), the elements a
record must hold, and whether runs may train only on dataset versions whose gates passed:

- a ``run.started`` without a required experiment, run number, code, inputs or environment;
- a ``dataset.version.created`` without a required source, or its licence;
- a ``model.version.status.changed`` to ``approved`` when no evaluation of that version is
  recorded before it;
- with ``require_passed_gates``, a ``run.started`` with a ``train`` input whose dataset
  version has no quality check recorded, or one that failed,

are refused with reason ``record_incomplete``, naming the record, the project and everything
missing. A ``run.completed`` without a required conclusion keeps its own reason
(``conclusion_required``, `discipline.ConclusionRequired`). Which policy is in force, and what
counts as recorded before, is `discipline.judge`'s business.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from provgraph.ingest.projection.mutations import (
    EventMutations,
    NodeUpsert,
    ProjectionError,
    Versioned,
    own_edges,
)
from provgraph.schemas.conventions import NO_CONVENTIONS, Conventions
from provgraph.schemas.events.model import ModelStatus
from provgraph.schemas.events.policy import ProjectPolicySetPayload
from provgraph.schemas.graph import Rel
from provgraph.schemas.records import (
    POLICY_RECORDS,
    REQUIRE_PASSED_GATES,
    REQUIRED_ELEMENTS,
    RecordKind,
)
from provgraph.schemas.storage import encode_json, json_key, parse_json

CONCLUSION = "conclusion"
REQUIRE_CONCLUSION = "require_conclusion"
POLICY_HISTORY = "policy.require_conclusion."
"""Prefix of the Project node's conclusion history: one property per policy event, named by
its log version (``policy.require_conclusion.<logged_at>|<event_id>``), holding the boolean."""
QUALITY_GATES = json_key("quality_gates")  # a dataset version's stored gates (JSON text)
RUN_STARTED = "run.started"
DATASET_VERSION_CREATED = "dataset.version.created"
MODEL_EVALUATED = "model.version.evaluated"
MODEL_STATUS_CHANGED = "model.version.status.changed"
TRAIN = "train"
APPEND_SPREAD = timedelta(seconds=1)
"""How far apart the log may append one request's events: ingest appends them together, each
to its subject's partition, in no fixed order within the request (`counts_by`)."""
PASSED_GATES = "passed_gates"  # what a run lacks when it trains on data that did not pass

# What holds each element in the fold's mutations of the record's own event: a property of
# its node, or a relationship leaving it.
_PROPERTY: dict[str, str] = {"run_number": "run_number", "code": "code_commit"}
_PROPERTY |= {"source": "source_uri", "licence": "source_licence"}
_RELATIONSHIP: dict[str, Rel] = {
    "experiment": Rel.PART_OF,
    "inputs": Rel.USED,
    "environment": Rel.RAN_IN,
}
_RECORDED_BY: dict[str, RecordKind] = {
    RUN_STARTED: RecordKind.RUN,
    DATASET_VERSION_CREATED: RecordKind.DATASET_VERSION,
}


@dataclass(frozen=True)
class Policy:
    """A project's policy: the elements required per kind, and whether runs may train only
    on dataset versions whose quality gates passed."""

    required: Mapping[RecordKind, tuple[str, ...]] = field(default_factory=dict)
    require_passed_gates: bool = False
    conventions: Conventions = NO_CONVENTIONS

    def of(self, kind: RecordKind) -> tuple[str, ...]:
        """The sorted elements required of `kind`."""
        return self.required.get(kind, ())

    @property
    def requires_conclusion(self) -> bool:
        """Whether a run.completed must carry a conclusion."""
        return CONCLUSION in self.of(RecordKind.RUN)

    def elements_text(self) -> str:
        """The Project node's `REQUIRED_ELEMENTS`: kind -> sorted elements, none left out."""
        return encode_json({k.value: list(v) for k, v in sorted(self.required.items()) if v})

    def text(self) -> str:
        """The whole policy as JSON (its entry in the history)."""
        gates = self.require_passed_gates
        stated = {"required": parse_json(self.elements_text()), "gates": gates}
        return encode_json(stated | self.conventions.stored())


NO_POLICY = Policy()


def policy_of(payload: ProjectPolicySetPayload) -> Policy:
    """The policy a ``project.policy.set`` states."""
    required = {kind: payload.required.of(kind) for kind in RecordKind}
    kept = {kind: names for kind, names in required.items() if names}
    conventions = Conventions(
        payload.metric_aliases,
        payload.names.stated(),
        payload.require_names,
        payload.storage_roots,
        payload.require_places,
    )
    return Policy(kept, payload.require_passed_gates, conventions)


def _required_of(data: Any) -> dict[RecordKind, tuple[str, ...]]:
    if not isinstance(data, dict):
        return {}
    kinds = {k.value: k for k in RecordKind}
    return {kinds[k]: tuple(sorted(map(str, v))) for k, v in data.items() if k in kinds and v}


def policy_history(
    conclusions: Mapping[str, bool], records: Mapping[str, str]
) -> dict[str, Policy]:
    """A project's policies by log version, from its stored history: the whole policy where
    it is kept (`POLICY_RECORDS`), else (a policy folded before it was) its conclusion rule."""
    history = {
        version: Policy({RecordKind.RUN: (CONCLUSION,)} if required else {})
        for version, required in conclusions.items()
    }
    for version, text in records.items():
        history[version] = kept_policy(text)
    return history


def kept_policy(text: str) -> Policy:
    """The policy a history entry (`Policy.text`) holds."""
    data = parse_json(text)
    data = data if isinstance(data, dict) else {}
    conventions = Conventions.from_stored(data)
    return Policy(_required_of(data.get("required")), bool(data.get("gates")), conventions)


def policy_props(version: str, policy: Policy) -> dict[str, Versioned]:
    """The Project node's properties of one policy event with log version `version`: the
    policy now (last-writer-wins: `REQUIRED_ELEMENTS`, `REQUIRE_PASSED_GATES` and the
    conclusion rule) and its entries in the history."""
    conclusion = Versioned(version, policy.requires_conclusion)
    return {
        REQUIRE_CONCLUSION: conclusion,
        REQUIRED_ELEMENTS: Versioned(version, policy.elements_text()),
        REQUIRE_PASSED_GATES: Versioned(version, policy.require_passed_gates),
        POLICY_HISTORY + version: conclusion,
        POLICY_RECORDS + version: Versioned(version, policy.text()),
    }


def stated_policy(node: NodeUpsert) -> Policy | None:
    """The policy a policy event's Project upsert states (`policy_props`), if it does."""
    for name, kept in node.lww.items():
        if name.startswith(POLICY_RECORDS) and isinstance(kept.value, str):
            return kept_policy(kept.value)
    return None


# ---- what a record holds ---------------------------------------------------------------------


@dataclass(frozen=True)
class GateFailure:
    """A dataset version a run trains on that did not pass: the checks that failed, none
    when no check was recorded at all."""

    dataset_version: str
    failed: tuple[str, ...] = ()

    def __str__(self) -> str:
        if not self.failed:
            return f"{self.dataset_version} (no quality check recorded)"
        checks = ", ".join(repr(c) for c in self.failed)
        return f"{self.dataset_version} (quality check {checks} failed)"


class RecordIncomplete(ProjectionError):
    """A record without an element its project's policy requires, or a run that trains on
    a dataset version whose quality gates did not pass."""

    reason = "record_incomplete"

    def __init__(
        self,
        record: str,
        kind: RecordKind,
        project: str,
        missing: Sequence[str],
        gates: Sequence[GateFailure] = (),
    ) -> None:
        self.record, self.kind, self.project = record, kind, project
        self.missing, self.gates = tuple(missing), tuple(gates)
        lacks = [m for m in self.missing if m != PASSED_GATES]
        parts = [f"lacks {', '.join(lacks)}"] if lacks else []
        if kind is RecordKind.MODEL_VERSION:
            parts = ["is approved with no evaluation of it recorded before"]
        if self.gates:
            parts.append(f"trains on {', '.join(str(g) for g in self.gates)}")
        rules = [f"required.{kind.value}"] if lacks else []
        rule = " and ".join(rules + (["require_passed_gates"] if self.gates else []))
        super().__init__(
            f"{kind.value.replace('_', ' ')} {record} {' and '.join(parts)}; project "
            f"{project!r} requires complete records (project.policy.set {rule}): "
            f"{_remedy(kind, bool(lacks), bool(self.gates))}"
        )


def _remedy(kind: RecordKind, lacks: bool, gates: bool) -> str:
    if kind is RecordKind.MODEL_VERSION:
        return "record model.version.evaluated of the version, then approve it"
    event = DATASET_VERSION_CREATED if kind is RecordKind.DATASET_VERSION else RUN_STARTED
    send = f"send {event} with them"
    train = "train only on dataset versions whose quality checks were recorded and passed"
    return "; ".join(([send] if lacks else []) + ([train] if gates else []))


def _holds(change: EventMutations, node: NodeUpsert, element: str) -> bool:
    if element in _PROPERTY:
        return _PROPERTY[element] in node.lww
    return bool(own_edges(change, _RELATIONSHIP[element]))


def missing_elements(
    change: EventMutations, node: NodeUpsert, policy: Policy
) -> tuple[RecordKind, list[str]] | None:
    """The kind of record the event records, and the elements `policy` requires of it that
    the event leaves out; None for an event that records no such kind."""
    kind = _RECORDED_BY.get(change.record.event_type)
    if kind is None:
        return None
    wanted = [e for e in policy.of(kind) if e != CONCLUSION]
    return kind, [e for e in wanted if not _holds(change, node, e)]


def approves(change: EventMutations, node: NodeUpsert) -> bool:
    """Whether the event moves a model version to approved."""
    status = node.lww.get("status")
    return change.record.event_type == MODEL_STATUS_CHANGED and (
        status is not None and status.value == ModelStatus.APPROVED.value
    )


def evaluated(change: EventMutations) -> list[str]:
    """The model versions an evaluation event evaluates."""
    if change.record.event_type != MODEL_EVALUATED:
        return []
    return [edge.dst for edge in own_edges(change, Rel.EVALUATED)]


def train_inputs(change: EventMutations) -> list[str]:
    """The dataset versions a run.started trains on (inputs of role ``train``), sorted."""
    if change.record.event_type != RUN_STARTED:
        return []
    edges = own_edges(change, Rel.USED)
    return sorted({e.dst for e in edges if e.key.get("role") == TRAIN})


def failed_checks(gates_text: object) -> tuple[str, ...] | None:
    """The names of the failed checks of a dataset version's stored quality gates (JSON
    text), sorted; None when no check is recorded."""
    data = parse_json(gates_text) if isinstance(gates_text, str) else None
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list) or not checks:
        return None
    rows = [c for c in checks if isinstance(c, dict)]
    return tuple(sorted({str(c.get("name")) for c in rows if c.get("passed") is not True}))


def recorded_gates(node: NodeUpsert) -> tuple[str, ...] | None:
    """`failed_checks` of the gates a dataset.version.created records."""
    gates = node.lww.get(QUALITY_GATES)
    return failed_checks(gates.value if gates is not None else None)


def gate_failures(
    dataset_versions: Sequence[str], gates: Mapping[str, tuple[str, ...]]
) -> list[GateFailure]:
    """The dataset versions among `dataset_versions` that did not pass, by `gates` (dataset
    version -> its failed checks; absent: no check recorded)."""
    out = []
    for version in dataset_versions:
        failed = gates.get(version)
        if failed is None or failed:
            out.append(GateFailure(version, failed or ()))
    return out


def counts_by(recorded_at: str, at: str) -> bool:
    """Whether what the log appended at `recorded_at` ("": long before) counts for an event
    appended at `at`: appended before it, or less than `APPEND_SPREAD` after it, so that a
    dataset version or an evaluation sent in the same request as the run or the approval
    counts in the projector as it does at ingest."""
    if recorded_at <= at:
        return True
    try:
        return datetime.fromisoformat(recorded_at) < datetime.fromisoformat(at) + APPEND_SPREAD
    except ValueError:  # not a log time ("~": after everything, at ingest)
        return False


def history_rows(rows: Sequence[Sequence[Any]]) -> tuple[dict[str, bool], dict[str, str]]:
    """A stored policy history, as (property name, value) rows of the Project node, split
    into its conclusion entries and its whole-policy entries (by log version)."""
    conclusions: dict[str, bool] = {}
    records: dict[str, str] = {}
    for name, value in rows:
        key = str(name)
        if key.startswith(POLICY_RECORDS):
            records[key.removeprefix(POLICY_RECORDS)] = str(value)
        elif key.startswith(POLICY_HISTORY):
            conclusions[key.removeprefix(POLICY_HISTORY)] = bool(value)
    return conclusions, records


def stored_history(props: Mapping[str, Any]) -> dict[str, Policy]:
    """The policy history a Project node's properties hold (empty: no policy was set)."""
    rows = [(k, v) for k, v in props.items() if k.startswith((POLICY_HISTORY, POLICY_RECORDS))]
    return policy_history(*history_rows(rows))
