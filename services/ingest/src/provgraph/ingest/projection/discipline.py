"""Records discipline, decided from mutations alone (no I/O): read-only environments, the
conclusion a project may require, and complete records (`projection.completeness`).

- **Environments are read-only.** The fold stores on each Environment node the hash of its
  snapshot's contents (`CONTENT_HASH`: every payload field but the key) and one short digest
  per field (`CONTENT_FIELDS`, ``"packages=0f3a..."``), so a later snapshot under the same key
  can be compared with the stored one and the fields that differ named. The same contents
  again (the same event repeated, or another event_id) are fine; other contents are refused
  (reason ``environment_changed``). A changed environment is a new key whose snapshot says
  ``based_on: <the old environment id>``.
- **Conclusions may be required.** ``project.policy.set`` stores ``require_conclusion`` on
  the Project node (last-writer-wins by the log's order, like grants) and keeps each policy
  under its log version (`POLICY_HISTORY` + ``<logged_at>|<event_id>``). A ``run.completed``
  without a conclusion is refused (reason ``conclusion_required``) when the policy in force
  requires one: in the projector, `replay` and `verify` the last policy *before it in the
  log's order* (so the answer never depends on which partition a projector read first); at
  ingest, where there is no log time yet, the latest one stored, then those earlier in the
  request.
- **Records may be required complete.** The same policy names the elements each kind of record
  must hold and whether runs may train only on data whose quality gates passed
  (`projection.completeness`, reason ``record_incomplete``); it is in force by the same order.

`judge` applies the rules to a batch, starting from the stored `RecordFacts` and updating them
as it goes, so an environment, a dataset version's gates or an evaluation first recorded
earlier in the batch, or a policy set before the event, counts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from provgraph.ingest.projection.completeness import (
    CONCLUSION,
    DATASET_VERSION_CREATED,
    MODEL_EVALUATED,
    MODEL_STATUS_CHANGED,
    NO_POLICY,
    PASSED_GATES,
    RUN_STARTED,
    Policy,
    RecordIncomplete,
    approves,
    counts_by,
    evaluated,
    gate_failures,
    missing_elements,
    recorded_gates,
    stated_policy,
    train_inputs,
)
from provgraph.ingest.projection.conventions_rule import (
    CONVENTION_EVENTS,
    convention_error,
    experiment_of,
    job,
    output_of,
    taken,
)
from provgraph.ingest.projection.mutations import (
    EventMutations,
    NodeUpsert,
    ProjectionError,
    own_node,
)
from provgraph.ingest.projection.numbering import scope_of, stated
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.records import RecordKind
from provgraph.schemas.storage import event_version

CONTENT_HASH = "content_hash"
CONTENT_FIELDS = "content_fields"
ENVIRONMENT_EVENT = "environment.snapshot.recorded"
POLICY_EVENT = "project.policy.set"
RUN_COMPLETED = "run.completed"
_FIELD_DIGEST_CHARS = 16
_AFTER_EVERYTHING = "~"  # sorts after every log version: "now", at ingest


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Contents:
    """An environment snapshot's contents: their hash and one digest per field."""

    digest: str
    fields: tuple[str, ...]  # "<field>=<digest>", sorted by field

    def changed(self, other: Contents) -> list[str]:
        """The fields whose contents differ between `self` and `other`, sorted."""
        mine, theirs = _by_name(self.fields), _by_name(other.fields)
        return sorted(n for n in mine.keys() | theirs.keys() if mine.get(n) != theirs.get(n))


def _by_name(fields: Sequence[str]) -> dict[str, str]:
    return dict(f.split("=", 1) for f in fields if "=" in f)


def contents_of(payload: EnvironmentSnapshotRecordedPayload) -> Contents:
    """The contents of a snapshot: every field but the key (absent fields count as absent)."""
    data = payload.model_dump(mode="json", exclude={"key"})
    fields = tuple(f"{n}={_digest(v)[:_FIELD_DIGEST_CHARS]}" for n, v in sorted(data.items()))
    return Contents(_digest(data), fields)


def contents_props(contents: Contents) -> dict[str, str | tuple[str, ...]]:
    """The node properties that keep `contents` (what the rule reads back)."""
    return {CONTENT_HASH: contents.digest, CONTENT_FIELDS: contents.fields}


@dataclass
class RecordFacts:
    """What the rules read of the stored graph: each recorded environment's contents, the
    policy history of each project that has set one (log version -> `Policy`), the failed
    quality checks of dataset versions that recorded some (absent: none recorded), and the
    model versions with an evaluation recorded; of both, when the log appended them (a gate or
    an evaluation counts for an event appended no earlier, whichever a projector read first)."""

    environments: dict[str, Contents] = field(default_factory=dict)
    policies: dict[str, dict[str, Policy]] = field(default_factory=dict)
    gates: dict[str, tuple[str, ...]] = field(default_factory=dict)
    evaluated: set[str] = field(default_factory=set)
    recorded_at: dict[str, str] = field(default_factory=dict)  # id -> when the log had it
    # Read only when a project requires places (`places_wanted`): the outputs at each URI,
    # (record, job) in the order recorded, and the experiment of each run asked about.
    writers: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    experiments: dict[str, str | None] = field(default_factory=dict)

    def policy(self, project: str, before: str = _AFTER_EVERYTHING) -> Policy:
        """The policy in force just before the log version `before` (by default: the latest);
        a project without a policy requires nothing."""
        history = self.policies.get(project, {})
        known = [version for version in history if version < before]
        return history[max(known)] if known else NO_POLICY

    def known(self, recorded: Collection[str], entity: str, at: str) -> bool:
        """Whether `entity` is among `recorded` for an event the log appended at `at`
        (`recorded_at`, `completeness.counts_by`)."""
        return entity in recorded and counts_by(self.recorded_at.get(entity, ""), at)

    def gates_known(self, at: str) -> dict[str, tuple[str, ...]]:
        """`gates` as they stood at the log time `at`."""
        return {d: f for d, f in self.gates.items() if self.known(self.gates, d, at)}

    def requires_conclusion(self, project: str, before: str = _AFTER_EVERYTHING) -> bool:
        """Whether the policy in force just before `before` requires a conclusion."""
        return self.policy(project, before).requires_conclusion


class EnvironmentChanged(ProjectionError):
    """A snapshot reuses a recorded environment's key with other contents."""

    reason = "environment_changed"

    def __init__(self, environment: str, fields: Sequence[str]) -> None:
        self.environment, self.fields = environment, tuple(fields)
        super().__init__(
            f"environment {environment} is already recorded with other contents (differing: "
            f"{', '.join(fields)}); a recorded environment is read-only: record the changed "
            f"one under a new key with based_on: {environment}"
        )


class ConclusionRequired(ProjectionError):
    """A run.completed without a conclusion, in a project whose policy requires one."""

    reason = "conclusion_required"

    def __init__(self, run: str, project: str) -> None:
        self.run, self.project = run, project
        super().__init__(
            f"run {run} completed without a conclusion, and project {project!r} requires one "
            "(project.policy.set require_conclusion): send run.completed with a conclusion"
        )


def _contents(node: NodeUpsert) -> Contents | None:
    digest, fields = node.lww.get(CONTENT_HASH), node.lww.get(CONTENT_FIELDS)
    if digest is None or fields is None or not isinstance(fields.value, tuple):
        return None
    return Contents(str(digest.value), tuple(str(f) for f in fields.value))


class Lookups(NamedTuple):
    """What `judge` needs read of the store (each sorted): environment ids, projects, the
    dataset versions runs train on, and the model versions approved."""

    environments: list[str]
    projects: list[str]
    dataset_versions: list[str]
    model_versions: list[str]


_RECORDING = frozenset({DATASET_VERSION_CREATED, MODEL_EVALUATED})
_POLICED = frozenset(
    {RUN_COMPLETED, RUN_STARTED, DATASET_VERSION_CREATED, MODEL_STATUS_CHANGED} | CONVENTION_EVENTS
)


def lookups(changes: Sequence[EventMutations]) -> Lookups:
    """What `judge` needs read of the store for `changes`."""
    environments = {c.record.subject for c in changes if c.record.event_type == ENVIRONMENT_EVENT}
    projects = {c.record.project for c in changes if c.record.event_type in _POLICED}
    trained = {version for c in changes for version in train_inputs(c)}
    approved = {c.record.subject for c in changes if _approves(c)}
    return Lookups(sorted(environments), sorted(projects), sorted(trained), sorted(approved))


def _approves(change: EventMutations) -> bool:
    node = own_node(change)
    return node is not None and approves(change, node)


def log_version(change: EventMutations) -> str:
    """Where an event stands in the log's order, ``<logged_at>|<event_id>`` (its claimed time
    when it is folded without its log record), as the fold versions policies."""
    record = change.record
    return event_version(record.logged_at or record.occurred_at, record.event_id)


def judge(
    changes: Sequence[EventMutations], facts: RecordFacts, *, by_log: bool = True
) -> list[ProjectionError | None]:
    """Per change: the rule it breaks, else None; `facts` is updated by the changes that pass.

    `by_log` (the projector, `replay`, `verify`): a run.completed is judged by the last policy
    before it in the log's order, the batch's own policies included, whatever order `changes`
    come in. Without it (ingest, before the log): by the latest policy stored, then by those
    earlier in `changes`. Environments are judged in the order of `changes` (one key's events
    share a partition, so that is the log's order).

    A dataset version's gates and a model version's evaluation count for an event: by the log,
    when appended before it or with it (`completeness.counts_by`: one request's events are
    appended together, on their own partitions, so the batch's records are judged first); at
    ingest, when stored or earlier in `changes`."""
    if not by_log:
        return [_judge_one(change, facts, by_log) for change in changes]
    for change in changes:
        _remember_policy(change, facts, log_version(change))
    first = {
        i: _judge_one(change, facts, by_log)
        for i, change in enumerate(changes)
        if change.record.event_type in _RECORDING
    }
    return [
        first[i] if i in first else _judge_one(change, facts, by_log)
        for i, change in enumerate(changes)
    ]


def _remember_policy(change: EventMutations, facts: RecordFacts, version: str) -> None:
    node = own_node(change)
    policy = stated_policy(node) if node is not None else None
    if change.record.event_type == POLICY_EVENT and policy is not None:
        facts.policies.setdefault(change.record.project, {})[version] = policy


def _judge_one(change: EventMutations, facts: RecordFacts, by_log: bool) -> ProjectionError | None:
    kind, node = change.record.event_type, own_node(change)
    if node is None:
        return None
    if kind == POLICY_EVENT and not by_log:  # in request order: after everything stored
        facts.policies.pop(change.record.project, None)
        _remember_policy(change, facts, "")
        return None
    before = log_version(change) if by_log else _AFTER_EVERYTHING
    policy = facts.policy(change.record.project, before)
    if kind == ENVIRONMENT_EVENT:
        return _environment(node, facts) or convention_error(change, node, policy.conventions)
    broken = convention_error(change, node, policy.conventions) or _taken(
        change, node, facts, policy
    )
    if broken is not None:
        return broken
    if kind == RUN_COMPLETED:
        if CONCLUSION not in node.lww and policy.requires_conclusion:
            return ConclusionRequired(node.id, change.record.project)
        return None
    at = _logged_at(change) if by_log else ""  # at ingest, what is recorded counts at once
    verdict = _incomplete(change, node, facts, policy, at or _AFTER_EVERYTHING)
    if verdict is None:
        _learn(change, node, facts, at)
    return verdict


def _incomplete(
    change: EventMutations, node: NodeUpsert, facts: RecordFacts, policy: Policy, at: str
) -> RecordIncomplete | None:
    """The elements `policy` requires that the event's record lacks, if any, by what `facts`
    knew at the log time `at`."""
    project, found = change.record.project, missing_elements(change, node, policy)
    if found is not None:
        kind, missing = found
        trains = train_inputs(change) if policy.require_passed_gates else []
        gates = gate_failures(trains, facts.gates_known(at))
        if not missing and not gates:
            return None
        return RecordIncomplete(
            node.id, kind, project, missing + [PASSED_GATES] * bool(gates), gates
        )
    wanted = "evaluation" in policy.of(RecordKind.MODEL_VERSION)
    evaluation = facts.known(facts.evaluated, node.id, at)
    if wanted and approves(change, node) and not evaluation:
        return RecordIncomplete(node.id, RecordKind.MODEL_VERSION, project, ["evaluation"])
    return None


def _taken(
    change: EventMutations, node: NodeUpsert, facts: RecordFacts, policy: Policy
) -> ProjectionError | None:
    """Under `require_places`, the output of another job at the URI this output is stored at."""
    output = output_of(change, node) if policy.conventions.require_places else None
    if output is None:
        return None
    uri, run = output
    return taken(node.id, uri, job(node.id, run, facts.experiments), facts.writers)


def places_wanted(
    changes: Sequence[EventMutations], facts: RecordFacts
) -> tuple[list[str], list[str]]:
    """The URIs whose stored outputs, and the runs whose experiments, the place rule needs for
    `changes` (each sorted): those of the outputs of projects that require places in a policy
    stored or among `changes`; none when no project does."""
    placing = {
        project
        for project, history in facts.policies.items()
        if any(p.conventions.require_places for p in history.values())
    }
    for change in changes:
        if change.record.event_type == POLICY_EVENT:
            node = own_node(change)
            stated = stated_policy(node) if node is not None else None
            if stated is not None and stated.conventions.require_places:
                placing.add(change.record.project)
    uris, runs = set(), set()
    for change in changes if placing else ():
        node = own_node(change) if change.record.project in placing else None
        output = output_of(change, node) if node is not None else None
        if output is not None:
            uris.add(output[0])
            if output[1] is not None:
                runs.add(output[1])
    return sorted(uris), sorted(runs)


def _learn(change: EventMutations, node: NodeUpsert, facts: RecordFacts, at: str) -> None:
    """Keep what a passing event records that later events are judged by, with the log time
    `at` it counts from."""
    if change.record.event_type == RUN_STARTED:
        facts.experiments[node.id] = experiment_of(change, node)
    output = output_of(change, node)
    if output is not None:
        uri, run = output
        facts.writers.setdefault(uri, []).append((node.id, job(node.id, run, facts.experiments)))
    failed = recorded_gates(node) if change.record.event_type == DATASET_VERSION_CREATED else None
    if failed is not None and node.id not in facts.gates:
        facts.gates[node.id] = failed
        facts.recorded_at[node.id] = at
    for version in evaluated(change):
        if version not in facts.evaluated:
            facts.evaluated.add(version)
            facts.recorded_at[version] = at


def _logged_at(change: EventMutations) -> str:
    """When the log appended the event (its claimed time when folded without its record)."""
    return change.record.logged_at or change.record.occurred_at


def _environment(node: NodeUpsert, facts: RecordFacts) -> ProjectionError | None:
    contents = _contents(node)
    if contents is None:
        return None
    stored = facts.environments.setdefault(node.id, contents)
    if stored.digest == contents.digest:
        return None
    return EnvironmentChanged(node.id, stored.changed(contents) or ["contents"])


def facts_of(
    environments: Mapping[str, tuple[str, Collection[str]]],
    policies: Mapping[str, Mapping[str, Policy]],
    gates: Mapping[str, tuple[Iterable[str], str]] | None = None,
    evaluated: Mapping[str, str] | None = None,
) -> RecordFacts:
    """`RecordFacts` from stored rows: environment id -> (content hash, field digests);
    project -> policy history (log version -> `Policy`); dataset version -> (its failed
    quality checks, when the log appended them), for those with checks recorded; model
    version -> when the log appended its first evaluation."""
    gates, evaluated = gates or {}, evaluated or {}
    return RecordFacts(
        {i: Contents(d, tuple(sorted(f))) for i, (d, f) in environments.items()},
        {p: dict(h) for p, h in policies.items()},
        {d: tuple(sorted(f)) for d, (f, _) in gates.items()},
        set(evaluated),
        {**{d: at for d, (_, at) in gates.items()}, **evaluated},
    )


# ---- one request's order in the log ----------------------------------------------------------


def append_steps(changes: Sequence[EventMutations], facts: RecordFacts) -> list[int]:
    """Where one request must be appended in steps, as indexes of `changes` starting a step
    (the first is 0): before each event whose verdict at ingest read what an earlier event of
    the request, of another subject, recorded (a policy, gates, an evaluation, an output or
    a run's experiment where places are required), and before a policy that follows events
    of its project judged under the old one.

    Ingest judges a request in its own order; the projector, `replay` and `verify` judge by
    the log's, where events of different subjects land on their own partitions and those of
    one step may take any order. Appending each step only once the one before it is
    acknowledged, a millisecond later, makes the log's order agree wherever a verdict
    depends on it. Numbers are given in the log's order too (`projection.numbering`): a
    step starts before an experiment or run whose number depends on one given earlier in
    the request (one left to be assigned, or the same one claimed). Otherwise a project
    without a policy reads nothing of the sort: one step."""
    steps, taught = [0], dict[tuple[str, str], set[str]]()
    for index, change in enumerate(changes):
        reads, teaches = _numbering_reads_teaches(change)
        node = own_node(change)
        if node is not None and facts.policies.get(change.record.project):
            policed = _reads_teaches(change, node, facts)
            reads, teaches = reads | policed[0], teaches | policed[1]
        subject = change.record.subject
        if any(taught.get(key, set()) - {subject} for key in reads):
            steps.append(index)
            taught = {}
        for key in teaches:
            taught.setdefault(key, set()).add(subject)
    return steps if len(changes) else []


def _numbering_reads_teaches(
    change: EventMutations,
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """What an experiment's or a run's number depends on in the request, and what it gives:
    one to be assigned depends on every number given in its scope before it, a claimed one
    on the same claim and on the assignments before it."""
    scope = scope_of(change)
    if scope is None:
        return set(), set()
    within, claim = str(scope), stated(change)
    if claim is None:
        return {("numbers", within)}, {("numbers", within), ("assigned", within)}
    number = ("number", f"{within}#{claim}")
    return {number, ("assigned", within)}, {("numbers", within), number}


def _reads_teaches(
    change: EventMutations, node: NodeUpsert, facts: RecordFacts
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """What the event's verdict reads, and what it records for later verdicts, as keys."""
    kind, project = change.record.event_type, change.record.project
    reads: set[tuple[str, str]] = set()
    teaches: set[tuple[str, str]] = set()
    if kind == POLICY_EVENT:
        reads.add(("judged", project))
        teaches.add(("policy", project))
    if kind in _POLICED:
        reads.add(("policy", project))
        teaches.add(("judged", project))
    reads |= {("gates", version) for version in train_inputs(change)}
    if kind == DATASET_VERSION_CREATED:
        teaches.add(("gates", node.id))
    if _approves(change):
        reads.add(("evaluated", node.id))
    teaches |= {("evaluated", version) for version in evaluated(change)}
    placing = facts.policy(project).conventions.require_places
    if placing and (kind == RUN_STARTED or output_of(change, node) is not None):
        reads.add(("places", project))
        teaches.add(("places", project))
    return reads, teaches
