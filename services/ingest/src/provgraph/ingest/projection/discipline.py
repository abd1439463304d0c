"""Records discipline, decided from mutations alone (no I/O): read-only environments and the
conclusion a project may require.

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

`judge` applies both rules to a batch, starting from the stored `RecordFacts` and updating them
as it goes, so an environment first recorded earlier in the batch, or a policy set before the
run.completed, counts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from provgraph.ingest.projection.mutations import (
    EventMutations,
    NodeUpsert,
    ProjectionError,
    Versioned,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.storage import event_version

CONTENT_HASH = "content_hash"
CONTENT_FIELDS = "content_fields"
REQUIRE_CONCLUSION = "require_conclusion"
POLICY_HISTORY = "policy.require_conclusion."
"""Prefix of the Project node's policy history: one property per policy event, named by its
log version (``policy.require_conclusion.<logged_at>|<event_id>``), holding the boolean."""
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


def policy_props(version: str, required: bool) -> dict[str, Versioned]:
    """The Project node's properties of one policy event with log version `version`: the
    policy now (last-writer-wins) and its entry in the history."""
    entry = Versioned(version, required)
    return {REQUIRE_CONCLUSION: entry, POLICY_HISTORY + version: entry}


@dataclass
class RecordFacts:
    """What the rules read of the stored graph: each recorded environment's contents, and the
    policy history of each project that has set one (log version -> require_conclusion)."""

    environments: dict[str, Contents] = field(default_factory=dict)
    policies: dict[str, dict[str, bool]] = field(default_factory=dict)

    def requires_conclusion(self, project: str, before: str = _AFTER_EVERYTHING) -> bool:
        """The policy in force just before the log version `before` (by default: the latest);
        a project without a policy requires nothing."""
        history = self.policies.get(project, {})
        known = [version for version in history if version < before]
        return history[max(known)] if known else False


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


def _own_node(change: EventMutations) -> NodeUpsert | None:
    """The upsert of the event's own subject, if it writes one."""
    subject = change.record.subject
    found = [m for m in change.mutations if isinstance(m, NodeUpsert) and m.id == subject]
    return found[0] if found else None


def _contents(node: NodeUpsert) -> Contents | None:
    digest, fields = node.lww.get(CONTENT_HASH), node.lww.get(CONTENT_FIELDS)
    if digest is None or fields is None or not isinstance(fields.value, tuple):
        return None
    return Contents(str(digest.value), tuple(str(f) for f in fields.value))


def lookups(changes: Sequence[EventMutations]) -> tuple[list[str], list[str]]:
    """What `judge` needs read of the store: environment ids and projects (sorted)."""
    environments = {c.record.subject for c in changes if c.record.event_type == ENVIRONMENT_EVENT}
    projects = {c.record.project for c in changes if c.record.event_type == RUN_COMPLETED}
    return sorted(environments), sorted(projects)


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
    share a partition, so that is the log's order)."""
    if by_log:
        for change in changes:
            _remember_policy(change, facts, log_version(change))
    return [_judge_one(change, facts, by_log) for change in changes]


def _remember_policy(change: EventMutations, facts: RecordFacts, version: str) -> None:
    node = _own_node(change)
    required = node.lww.get(REQUIRE_CONCLUSION) if node is not None else None
    if change.record.event_type == POLICY_EVENT and required is not None:
        history = facts.policies.setdefault(change.record.project, {})
        history[version] = bool(required.value)


def _judge_one(change: EventMutations, facts: RecordFacts, by_log: bool) -> ProjectionError | None:
    kind, node = change.record.event_type, _own_node(change)
    if node is None:
        return None
    if kind == ENVIRONMENT_EVENT:
        return _environment(node, facts)
    if kind == POLICY_EVENT and not by_log:  # in request order: after everything stored
        facts.policies.pop(change.record.project, None)
        _remember_policy(change, facts, "")
    elif kind == RUN_COMPLETED and "conclusion" not in node.lww:
        project = change.record.project
        before = log_version(change) if by_log else _AFTER_EVERYTHING
        if facts.requires_conclusion(project, before):
            return ConclusionRequired(node.id, project)
    return None


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
    policies: Mapping[str, Mapping[str, bool]],
) -> RecordFacts:
    """`RecordFacts` from stored rows: environment id -> (content hash, field digests);
    project -> policy history (log version -> require_conclusion)."""
    return RecordFacts(
        {i: Contents(d, tuple(sorted(f))) for i, (d, f) in environments.items()},
        {p: dict(h) for p, h in policies.items()},
    )
