"""Graph mutations: what the pure projection emits and what the writers apply.

Every mutation is a join in a semilattice (merge by id, min, max, last-writer-wins by a
version string), so applying the same mutations in any order, any number of times, gives the
same graph. That is what makes the fold order-insensitive and replays idempotent.

Versions are strings compared lexicographically: ``<occurred_at>|<event_id>`` with a
fixed-width UTC timestamp, so string order is (time, event_id) order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import Primitive, SeriesPoint, Value, series_id

# Re-exported: the writer's Cypher and the in-memory graph name the replaced set's version so.


class ProjectionError(Exception):
    """Root of the projection's errors: the event cannot be turned into mutations."""

    reason = "projection"  # the dead letter's reason code (`provgraph.ingest.projector.rejections`)


@dataclass(frozen=True)
class Versioned:
    """A property value with the version that wrote it (last-writer-wins)."""

    version: str
    value: Value


@dataclass(frozen=True)
class NodeUpsert:
    """Merge a node by id; fold its properties.

    `defining` is True when the event is the node's own (run.started for a run): it clears
    `placeholder` and sets `project`. A reference from another event only creates a placeholder.
    `writes` is False for a mere reference: it never claims the node for the event's project
    (`projection.ownership`).
    """

    id: str
    label: Label
    project: str
    defining: bool
    first_seen: str
    last_seen: str
    writes: bool = True
    lww: Mapping[str, Versioned] = field(default_factory=dict)
    mins: Mapping[str, str] = field(default_factory=dict)
    maxs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeUpsert:
    """Merge a relationship between two nodes; `key` props identify it, `props` are LWW."""

    src: str
    src_label: Label
    rel: Rel
    dst: str
    dst_label: Label
    key: Mapping[str, str] = field(default_factory=dict)
    version: str = ""
    props: Mapping[str, Primitive] = field(default_factory=dict)
    first_seen: str = ""  # earliest event time that stated it: `asOf` reads this

    @property
    def identity(self) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
        """What tells two relationships apart: ends, type and key properties."""
        return (self.src, self.rel.value, self.dst, tuple(sorted(self.key.items())))


@dataclass(frozen=True)
class Target:
    """One end of a replaced relationship set, with the relationship's properties."""

    id: str
    props: Mapping[str, Primitive] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeSetReplace:
    """Replace the whole set of `rel` relationships leaving `src` (LWW by version).

    Used where an event restates a set (deployment.updated's `serves`): older sets vanish.
    """

    src: str
    src_label: Label
    rel: Rel
    dst_label: Label
    version: str
    targets: tuple[Target, ...]


@dataclass(frozen=True)
class SeriesUpsert:
    """Merge the downsampled series of metric `name` of `run`; fold its points (bucket ->
    point), each bucket's last-writer-wins by its point's version, which orders by step first
    (`storage.step_version`): a bucket keeps its highest step, the later event on a tie.

    It lands only on a run of `project`: a write of a run another project claimed changes
    nothing, as for the run's own properties (`projection.ownership`).
    """

    run: str
    name: str
    project: str
    points: Mapping[int, SeriesPoint] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The series node's id (`storage.series_id`)."""
        return series_id(self.run, self.name)


@dataclass(frozen=True)
class ResolveReads:
    """Recompute the inferred input links around `subject`: a dataset id
    (``dataset:<p>/<name>``: its versions or its readers changed) or a run id (its start or end
    time changed: every dataset it READS).

    Not a join like the others but a request: each writer applies it after every other mutation
    of its batch, recomputing the inferred ``USED`` relationships of the datasets concerned from
    the facts stored then (`projection.resolution`), so the result depends on the facts alone,
    never on the order they arrived in. It writes nothing an event owns (`projection.ownership`).
    """

    subject: str


@dataclass(frozen=True)
class LogStamp:
    """What the log says about an event, beside the event's own claims (`occurred_at`, `actor`):
    when the broker appended its record (`logged_at`, UTC text as `storage.format_time`) and
    the principal ingest authenticated (`principal`, from the record's header). Both are None
    when an event is folded without its log record; `logged_at` then falls back to
    `occurred_at`."""

    logged_at: str | None = None
    principal: str | None = None


@dataclass(frozen=True)
class EventRecord:
    """The applied event itself: its id (idempotency), the hash of its payload (integrity),
    the log's stamp and every node it touched (history)."""

    event_id: str
    event_type: str
    occurred_at: str
    project: str
    subject: str
    actor: str
    touched: frozenset[str]
    producer: str = ""
    payload_hash: str = ""
    logged_at: str | None = None
    principal: str | None = None


Mutation = NodeUpsert | EdgeUpsert | EdgeSetReplace | SeriesUpsert | ResolveReads


@dataclass(frozen=True)
class EventMutations:
    """Everything one event does to the graph."""

    record: EventRecord
    mutations: tuple[Mutation, ...]


def own_node(change: EventMutations) -> NodeUpsert | None:
    """The upsert of the event's own subject, if it writes one."""
    subject = change.record.subject
    nodes = (m for m in change.mutations if isinstance(m, NodeUpsert) and m.id == subject)
    return next(nodes, None)


def own_edges(change: EventMutations, rel: Rel) -> list[EdgeUpsert]:
    """The event's upserts of `rel` edges from its own subject."""
    subject = change.record.subject
    return [
        m
        for m in change.mutations
        if isinstance(m, EdgeUpsert) and m.src == subject and m.rel is rel
    ]
