"""Ownership: which project may write which entity, decided from mutations alone (no I/O).

Every entity has one owning project:

- an id that carries a project (``dataset:<p>/...``, ``model:<p>/...``, ``experiment:``,
  ``environment:``, ``deployment:``, ``job:``, ``project:``) is owned by that project;
- a run, a checkpoint or an evaluation (ids without a project) is owned by the project of the
  first event that *writes* it: defines it, sets any property on it, or states a relationship
  from it. The node then carries ``claimed`` and its project never changes. A checkpoint
  ``checkpoint:<run_id>/<step>`` also belongs to whoever owns its run;
- principals are global: only global admins write them (`provgraph.authz`), no project owns
  them.

A reference (an id `Ctx.ref` mentions, the target of a relationship) writes nothing and never
claims: a placeholder mentioned by project A stays free for its real owner. An event may write
only what its own project owns, or what nobody owns yet (it then claims it). The one exception:
an OpenLineage event may write datasets of another namespace's project when `Rights` allow it
(ingest: the caller holds writer there; the projector: ingest stamped the record).

`screen` applies the rule to a batch in log order, claiming as it goes, exactly as the writer
will fold it: ingest runs it before appending (403), the projector before writing
(dead letter, reason ``ownership``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    EventMutations,
    Mutation,
    NodeUpsert,
    ProjectionError,
)
from provgraph.schemas import IdKind, parse_id, run_id
from provgraph.schemas.graph import Label, Rel

CLAIMED_LABELS = frozenset({Label.RUN, Label.CHECKPOINT, Label.EVALUATION})
"""Labels of the entities whose id names no project: the first write claims them."""

OPENLINEAGE_PREFIX = "openlineage."
_OPENLINEAGE_WRITABLE = frozenset({IdKind.DATASET, IdKind.DATASET_VERSION})


@dataclass(frozen=True)
class Owner:
    """A stored entity's project, and whether it owns the entity (`claimed`) or the entity is
    still free (a placeholder only mentioned so far, whose project is provisional)."""

    project: str
    claimed: bool


Owners = Mapping[str, Owner]


class OwnershipError(ProjectionError):
    """An event writes an entity another project owns: it must have no effect."""

    reason = "ownership"


def claims(m: NodeUpsert) -> bool:
    """True when `m` claims its node for its project if nobody owns the node yet."""
    return m.writes and m.label in CLAIMED_LABELS


# ---- what one event writes and what it only mentions --------------------------------------


@dataclass(frozen=True)
class Footprint:
    """The ids an event writes, and those it only references."""

    written: frozenset[str]
    referenced: frozenset[str]


def footprint(mutations: Iterable[Mutation]) -> Footprint:
    """Written: nodes upserted with `writes`, sources of relationships; the rest referenced.
    A `ResolveReads` request neither writes nor references: the inferred links it recomputes
    go from a reader's run to versions it may only reference, and belong to no event."""
    written: set[str] = set()
    mentioned: set[str] = set()
    for m in mutations:
        if isinstance(m, NodeUpsert):
            (written if m.writes else mentioned).add(m.id)
        elif isinstance(m, EdgeUpsert):
            (mentioned if _implied(m) else written).add(m.src)
            mentioned.add(m.dst)
        elif isinstance(m, EdgeSetReplace):
            written.add(m.src)
            mentioned.update(t.id for t in m.targets)
    return Footprint(frozenset(written), frozenset(mentioned - written))


def _implied(m: EdgeUpsert) -> bool:
    # `dataset:p/n@v` VERSION_OF `dataset:p/n` says nothing the ids do not: stating it is a
    # reference (an OpenLineage input of another project links its version so).
    entity, at, _ = m.src.partition("@")
    return m.rel is Rel.VERSION_OF and bool(at) and entity == m.dst and not m.props


def with_writes(mutations: Sequence[Mutation]) -> tuple[Mutation, ...]:
    """`mutations` with `writes` set on the upsert of every node the event writes (the source
    of a relationship too), so the writer claims exactly what `screen` counted as written."""
    written = footprint(mutations).written
    return tuple(
        replace(m, writes=True)
        if isinstance(m, NodeUpsert) and not m.writes and m.id in written
        else m
        for m in mutations
    )


# ---- who owns what -------------------------------------------------------------------------


def run_of(entity: str) -> str | None:
    """The run whose owner owns `entity`: ``run:<r>`` for ``checkpoint:<r>/<step>``."""
    parsed = parse_id(entity)
    if parsed.kind is IdKind.CHECKPOINT and len(parsed.parts) == 2:
        return run_id(parsed.parts[0])
    return None


def lookup_ids(changes: Iterable[EventMutations]) -> set[str]:
    """The ids whose stored owner `screen` needs: runs, checkpoints, evaluations (and the run
    of each checkpoint); the others name their owner."""
    ids: set[str] = set()
    for change in changes:
        for m in change.mutations:
            if isinstance(m, NodeUpsert) and m.label in CLAIMED_LABELS:
                ids.add(m.id)
                if (run := run_of(m.id)) is not None:
                    ids.add(run)
    return ids


def owner_of(entity: str, owners: Owners) -> str | None:
    """The project owning `entity`, None while nobody does (or no project can: principals)."""
    project = parse_id(entity).project
    if project is not None:
        return project
    found = owners.get(entity)
    return found.project if found is not None and found.claimed else None


def _deciders(entity: str, owners: Owners) -> list[tuple[str, str]]:
    """(entity, owner) pairs that decide who may write `entity`: itself and its run."""
    out = []
    for decider in (entity, run_of(entity)):
        owner = owner_of(decider, owners) if decider else None
        if decider and owner is not None:
            out.append((decider, owner))
    return out


# ---- the screen ----------------------------------------------------------------------------


class Rights(Protocol):
    """Whether an OpenLineage event may write another project's datasets."""

    def may_write(self, change: EventMutations, project: str) -> bool:
        """True when `change` may write datasets of `project`."""
        ...


class StampedRights:
    """The projector's `Rights`: an OpenLineage event may write another project's datasets
    when ingest stamped an authenticated principal on its record, for ingest appends such an
    event only once that principal holds writer on every project of its outputs.

    A record written straight to Kafka carries no stamp: it writes only its own project. The
    answer is a function of the record alone, never of grants read at projection time, so
    `replay` and `verify` judge every record as the projector did, in any interleaving of
    the partitions (a grant and the event it enabled may sit in different partitions).
    """

    def may_write(self, change: EventMutations, project: str) -> bool:
        """True when `change`'s record carries the principal ingest authenticated."""
        return bool(change.record.principal)


@dataclass(frozen=True)
class Violation:
    """An entity an event writes that another project owns."""

    entity: str
    owner: str
    project: str
    via: str | None = None  # the run through which `owner` owns a checkpoint

    def __str__(self) -> str:
        of = f" (through its run {self.via})" if self.via else ""
        return (
            f"{self.entity} belongs to project {self.owner!r}{of}: an event of project "
            f"{self.project!r} may not change it"
        )


@dataclass(frozen=True)
class Verdict:
    """One event's verdict: what it must not write, and who owns what it references."""

    violation: Violation | None
    references: Mapping[str, str]  # referenced entity -> owning project (owned ones only)


def screen(
    changes: Sequence[EventMutations], owners: Owners, rights: Rights | None = None
) -> list[Verdict]:
    """A verdict per change, in order; each accepted change claims the free entities it
    writes before the next is judged (as the writer folds them). Without `rights`, no
    OpenLineage event may write another project's datasets."""
    state = dict(owners)
    verdicts = []
    for change in changes:
        verdict = _judge(change, state, rights)
        if verdict.violation is None:
            _claim(change, state)
        verdicts.append(verdict)
    return verdicts


def _judge(change: EventMutations, state: Owners, rights: Rights | None) -> Verdict:
    prints = footprint(change.mutations)
    references = {}
    for entity in sorted(prints.referenced):
        deciders = _deciders(entity, state)
        if deciders:
            references[entity] = deciders[0][1]
    return Verdict(_violation(change, prints.written, state, rights), references)


def _violation(
    change: EventMutations, written: Iterable[str], state: Owners, rights: Rights | None
) -> Violation | None:
    """The first entity `change` writes that another project owns (in id order)."""
    project = change.record.project
    for entity in sorted(written):
        for decider, owner in _deciders(entity, state):
            if owner != project and not _openlineage_may(change, entity, owner, rights):
                return Violation(entity, owner, project, decider if decider != entity else None)
    return None


def _openlineage_may(
    change: EventMutations, entity: str, owner: str, rights: Rights | None
) -> bool:
    return (
        rights is not None
        and change.record.event_type.startswith(OPENLINEAGE_PREFIX)
        and parse_id(entity).kind in _OPENLINEAGE_WRITABLE
        and rights.may_write(change, owner)
    )


def _claim(change: EventMutations, state: dict[str, Owner]) -> None:
    for m in change.mutations:
        if isinstance(m, NodeUpsert) and claims(m):
            found = state.get(m.id)
            if found is None or not found.claimed:
                state[m.id] = Owner(change.record.project, True)
