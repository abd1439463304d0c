"""Experiment and run numbers, assigned and unique, decided from mutations and stored numbers
(no I/O).

- An **experiment's** ``number`` is unique within its project; a **run's** ``run_number`` is
  unique within its experiment (a run in no experiment is not numbered: what it states is
  kept as stated). So "experiment 12, run 3" names one thing.
- A number stated by the defining event (``experiment.created``, ``run.started``) is kept
  when it is free. Absent, the subject gets the next number of its scope: one more than the
  highest held there (numbers are never reused, gaps are not filled).
- **A resumed run continues its attempt**: a ``run.started`` resumed from a checkpoint of a
  run of the same experiment shares that run's number, stated or not (the chain of attempts
  is one numbered run; ``RESUMED_FROM`` tells its attempts apart).
- **A claim of a taken number is renumbered**, never refused: the subject gets the next
  number and keeps what it claimed beside it (``number_claimed``, ``run_number_claimed``),
  so a producer's mistake is visible and nothing of its record is lost.
- A subject keeps its first number: a later defining event of the same subject (a re-sent
  run.started under a new event id) is given that number again, and what it claimed, if
  different, is kept as claimed.

Who holds a number depends on which claim came first, so numbering, like the discipline
rules, is decided in the log's order: the projector and `replay` number each batch in that
order from the numbers stored before it, `verify` event by event, all with `number`. The
members of a projector group each number in their own partitions' order, unless told to
give the log's (`projector_exact_group_numbers`: a member's source holds a record that
`may_number` until no other member has such a record to apply before it). A
request's events are appended in steps where their numbers depend on each other
(`discipline.append_steps`), so the log's order agrees with the request's there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from provgraph.ingest.projection.completeness import RUN_STARTED
from provgraph.ingest.projection.mutations import (
    EventMutations,
    NodeUpsert,
    Versioned,
    own_edges,
    own_node,
)
from provgraph.ingest.projection.ownership import run_of
from provgraph.schemas.graph import Label, Rel

EXPERIMENT_CREATED = "experiment.created"
NUMBER = {Label.EXPERIMENT: "number", Label.RUN: "run_number"}
"""The property that holds each numbered label's number."""
CLAIMED = {label: f"{prop}_claimed" for label, prop in NUMBER.items()}
"""Where a renumbered subject keeps the number it claimed."""
_KEY = {Label.EXPERIMENT: "key", Label.RUN: "run_key"}
_NUMBERED = {EXPERIMENT_CREATED: Label.EXPERIMENT, RUN_STARTED: Label.RUN}


@dataclass(frozen=True, order=True)
class Scope:
    """Where a number must be unique: experiments ``within`` a project, or runs ``within``
    an experiment (its id)."""

    label: Label
    within: str

    def __str__(self) -> str:
        return f"{self.label.value}:{self.within}"


@dataclass
class Numbers:
    """The numbers held in each scope: holder id -> number, and number -> its holders (one,
    or the attempts of one resumed run), and the highest."""

    held: dict[Scope, dict[str, int]] = field(default_factory=dict)
    _holders: dict[Scope, dict[int, set[str]]] = field(default_factory=dict)
    _top: dict[Scope, int] = field(default_factory=dict)

    def add(self, scope: Scope, holder: str, number: int) -> None:
        """Note that `holder` holds `number` in `scope`."""
        self.held.setdefault(scope, {})[holder] = number
        self._holders.setdefault(scope, {}).setdefault(number, set()).add(holder)
        self._top[scope] = max(self._top.get(scope, 0), number)

    def of(self, scope: Scope, holder: str | None) -> int | None:
        """The number `holder` holds in `scope`, if any."""
        return self.held.get(scope, {}).get(holder) if holder is not None else None

    def holders(self, scope: Scope, number: int) -> set[str]:
        """Who holds `number` in `scope`."""
        return self._holders.get(scope, {}).get(number, set())

    def next(self, scope: Scope) -> int:
        """The number an unnumbered subject of `scope` gets: one more than the highest."""
        return self._top.get(scope, 0) + 1


def numbers_of(rows: Iterable[tuple[Scope, str, int]]) -> Numbers:
    """`Numbers` from stored (scope, holder, number) rows."""
    numbers = Numbers()
    for scope, holder, number in rows:
        numbers.add(scope, holder, int(number))
    return numbers


_NUMBERING_BYTES = (*(kind.encode() for kind in _NUMBERED), b"\\u")


def may_number(raw: bytes | None) -> bool:
    """Whether a log record's value `raw` may hold a numbering event, judged by its bytes
    before it is parsed: it may unless it holds neither numbering type's name nor a ``\\u``
    escape (the event type is a JSON string, written literally or with escapes)."""
    return raw is not None and any(part in raw for part in _NUMBERING_BYTES)


def scope_of(change: EventMutations) -> Scope | None:
    """Where the subject of `change` is numbered; None when it is not a numbering event or
    numbers nothing (a run in no experiment)."""
    label = _NUMBERED.get(change.record.event_type)
    if label is Label.EXPERIMENT:
        return Scope(label, change.record.project)
    if label is Label.RUN:
        experiments = own_edges(change, Rel.PART_OF)
        return Scope(label, experiments[0].dst) if experiments else None
    return None


def numbered(change: EventMutations) -> tuple[Scope, NodeUpsert] | None:
    """Where the subject of `change` is numbered, and the upsert that numbers it; None when
    the event numbers nothing."""
    scope = scope_of(change)
    node = own_node(change) if scope is not None else None
    if scope is None or node is None or node.label is not scope.label:
        return None
    return scope, node


def stated(change: EventMutations) -> int | None:
    """The number the event states for its subject, if any."""
    found = numbered(change)
    return _claim(found[1]) if found is not None else None


def _claim(node: NodeUpsert) -> int | None:
    found = node.lww.get(NUMBER[node.label])
    value = found.value if found is not None else None
    return value if isinstance(value, int) else None


def wanted(changes: Iterable[EventMutations]) -> tuple[list[str], list[str]]:
    """What `number` reads of the store for `changes` (each sorted): the projects whose
    experiments' numbers, and the experiments whose runs' numbers."""
    projects: set[str] = set()
    experiments: set[str] = set()
    for change in changes:
        scope = scope_of(change)
        if scope is not None:
            (projects if scope.label is Label.EXPERIMENT else experiments).add(scope.within)
    return sorted(projects), sorted(experiments)


def number(changes: Sequence[EventMutations], numbers: Numbers) -> list[EventMutations]:
    """`changes`, in order, with each numbering event's subject given its number (its
    mutation rewritten where that differs from what it states); `numbers` learns each."""
    return [_number_one(change, numbers) for change in changes]


def _number_one(change: EventMutations, numbers: Numbers) -> EventMutations:
    found = numbered(change)
    if found is None:
        return change
    (scope, node), claim = found, _claim(found[1])
    mine = numbers.of(scope, node.id)
    if mine is None:
        mine = _assign(scope, node.id, claim, _continues(change, scope, numbers), numbers)
        numbers.add(scope, node.id, mine)
    if claim == mine:
        return change
    return _rewritten(change, node, mine, claim)


def _continues(change: EventMutations, scope: Scope, numbers: Numbers) -> int | None:
    """The number of the run of the same experiment a resumed run continues, if any."""
    if scope.label is not Label.RUN:
        return None
    resumed = own_edges(change, Rel.RESUMED_FROM)
    checkpoint = resumed[0].dst if resumed else None
    return numbers.of(scope, run_of(checkpoint)) if checkpoint is not None else None


def _assign(
    scope: Scope, subject: str, claim: int | None, continued: int | None, numbers: Numbers
) -> int:
    if claim is None:
        return continued if continued is not None else numbers.next(scope)
    if claim == continued or not numbers.holders(scope, claim) - {subject}:
        return claim
    return numbers.next(scope)


def _rewritten(
    change: EventMutations, node: NodeUpsert, mine: int, claim: int | None
) -> EventMutations:
    version = _version(node)
    lww: dict[str, Versioned] = {**node.lww, NUMBER[node.label]: Versioned(version, mine)}
    if claim is not None:
        lww[CLAIMED[node.label]] = Versioned(version, claim)
    numbered = replace(node, lww=lww)
    mutations = tuple(numbered if m is node else m for m in change.mutations)
    return replace(change, mutations=mutations)


def _version(node: NodeUpsert) -> str:
    """The version the event wrote its own properties under: that of its key, which every
    defining event of a numbered label states."""
    return node.lww[_KEY[node.label]].version
