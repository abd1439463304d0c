"""Which version a run read when it did not say: the pure rule both writers apply.

An OpenLineage input without a ``version`` facet is stored as ``(Run)-[:READS]->(Dataset)``:
the run read some version of the dataset. From the facts stored about a dataset (its versions
with their creation times and producing runs, the runs that READ it with their start and end
times) the rule infers one version per reader:

    the version with the greatest (created_at, version id) such that created_at <= read time,

where a run's read time is its ``started_at``, else its ``ended_at``. A version never created
(a placeholder only referenced, without ``created_at``) and a version the reader itself
produced are not candidates; a reader without any time, or with no candidate, reads nothing
known (the READS relationship alone stays). Times are `storage.format_time` text, whose string
order is time order.

The inferred link is ``(Run)-[:USED {role: "input", inferred: "latest_version_at_run_start"}]
->(DatasetVersion)`` with ``first_seen_at`` = the run's read time: a function of the facts
alone, so any arrival order of the events, any batching and `replay` give the same graph.

`requests` says which datasets or runs an event's mutations ask to be resolved again; the
writers turn each request into the datasets concerned, read their facts, and make the stored
inferred links equal `plan`'s answer.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from provgraph.ingest.projection.mutations import (
    EdgeUpsert,
    Mutation,
    NodeUpsert,
    ResolveReads,
)
from provgraph.schemas.graph import INFERRED, INFERRED_LATEST_AT_RUN_START, Label, Rel

ROLE = "input"
INFERRED_KEY: Mapping[str, str] = {"role": ROLE, INFERRED: INFERRED_LATEST_AT_RUN_START}
"""The properties that tell an inferred USED relationship from a declared one (its key)."""

CREATED_AT, STARTED_AT, ENDED_AT = "created_at", "started_at", "ended_at"


def read_time(started_at: str | None, ended_at: str | None) -> str | None:
    """When a run read its inputs: its start, else its end (None when neither is known)."""
    return started_at or ended_at


def resolve(
    versions: Iterable[tuple[str, str | None]],
    reads: Iterable[tuple[str, str | None]],
    produced: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, str | None]:
    """For each reading run, the version it read (None: not known).

    `versions` are (version id, created_at or None), `reads` (run id, read time or None),
    `produced` the versions each run produced (never its own input)."""
    ordered = sorted((at, vid) for vid, at in versions if at is not None)
    times = [at for at, _ in ordered]
    own = {run: frozenset(vids) for run, vids in (produced or {}).items()}
    out: dict[str, str | None] = {}
    for run, at in reads:
        out[run] = None if at is None else _latest(ordered, times, at, own.get(run, frozenset()))
    return out


def _latest(
    ordered: Sequence[tuple[str, str]], times: Sequence[str], at: str, skip: frozenset[str]
) -> str | None:
    index = bisect_right(times, at)
    while index > 0:
        index -= 1
        if ordered[index][1] not in skip:
            return ordered[index][1]
    return None


# ---- what is stored about one dataset, and what must change --------------------------------


@dataclass(frozen=True)
class Version:
    """A version of the dataset: its id, creation time and the runs that produced it."""

    id: str
    created_at: str | None
    producers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Read:
    """A run that READS the dataset, with its start and end times."""

    run: str
    started_at: str | None
    ended_at: str | None


@dataclass(frozen=True, order=True)
class InferredUse:
    """An inferred USED relationship: run -> version, first seen at the run's read time."""

    run: str
    version: str
    first_seen: str


@dataclass(frozen=True)
class Facts:
    """What the writers read about one dataset before resolving it."""

    dataset: str
    versions: tuple[Version, ...] = ()
    reads: tuple[Read, ...] = ()
    inferred: tuple[InferredUse, ...] = ()  # the inferred links stored now


@dataclass(frozen=True)
class Plan:
    """The change that makes the stored inferred links equal the rule's answer."""

    write: tuple[InferredUse, ...] = ()  # to merge (first_seen_at set)
    delete: tuple[tuple[str, str], ...] = ()  # (run, version) links to remove

    def __bool__(self) -> bool:
        return bool(self.write or self.delete)


def wanted(facts: Facts) -> list[InferredUse]:
    """The inferred links the rule gives for one dataset's facts, sorted."""
    produced: dict[str, list[str]] = {}
    for version in facts.versions:
        for run in version.producers:
            produced.setdefault(run, []).append(version.id)
    times = {r.run: read_time(r.started_at, r.ended_at) for r in facts.reads}
    answer = resolve(((v.id, v.created_at) for v in facts.versions), times.items(), produced)
    return sorted(
        InferredUse(run, version, times[run] or "")
        for run, version in answer.items()
        if version is not None
    )


def plan(facts: Facts) -> Plan:
    """What to write and delete so that the stored inferred links are exactly `wanted`."""
    want = wanted(facts)
    have = set(facts.inferred)
    pairs = {(u.run, u.version) for u in want}
    stale = sorted({(u.run, u.version) for u in facts.inferred} - pairs)
    return Plan(tuple(u for u in want if u not in have), tuple(stale))


# ---- which events ask for it ---------------------------------------------------------------


@dataclass
class _Asks:
    subjects: set[str] = field(default_factory=set)

    def add(self, m: Mutation) -> None:
        if isinstance(m, EdgeUpsert):
            self._edge(m)
        elif isinstance(m, NodeUpsert):
            self._node(m)

    def _edge(self, m: EdgeUpsert) -> None:
        if m.rel is Rel.READS or (m.rel is Rel.VERSION_OF and m.dst_label is Label.DATASET):
            self.subjects.add(m.dst)
        elif m.rel is Rel.GENERATED_BY and m.src_label is Label.DATASET_VERSION:
            self.subjects.add(dataset_of(m.src))

    def _node(self, m: NodeUpsert) -> None:
        if m.label is Label.RUN and (STARTED_AT in m.mins or ENDED_AT in m.maxs):
            self.subjects.add(m.id)
        elif m.label is Label.DATASET_VERSION and CREATED_AT in m.mins:
            self.subjects.add(dataset_of(m.id))


def dataset_of(version_id: str) -> str:
    """The dataset of a version id: ``dataset:<p>/<name>`` of ``dataset:<p>/<name>@<v>``."""
    return version_id.partition("@")[0]


def requests(mutations: Iterable[Mutation]) -> list[ResolveReads]:
    """The resolutions an event's mutations ask for, sorted: every dataset whose versions
    (VERSION_OF, created_at, GENERATED_BY) or readers (READS) they change, and every run whose
    read time (started_at, ended_at) they change."""
    asks = _Asks()
    for m in mutations:
        asks.add(m)
    return [ResolveReads(subject) for subject in sorted(asks.subjects)]
