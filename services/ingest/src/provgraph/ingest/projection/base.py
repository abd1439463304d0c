"""The dispatch of events to projection functions, and the builders they share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import singledispatch
from typing import Any, TypeVar

from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    LogStamp,
    Mutation,
    NodeUpsert,
    ProjectionError,
    Target,
    Versioned,
)
from provgraph.ingest.projection.ownership import CLAIMED_LABELS
from provgraph.schemas import Event, IdKind, parse_id
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import (
    Primitive,
    Value,
    event_version,
    mention_version,
    rank_version,
)
from provgraph.schemas.storage import format_time as format_time  # re-exported: the fold's clock

_LABELS: dict[IdKind, Label] = {
    IdKind.DATASET: Label.DATASET,
    IdKind.DATASET_VERSION: Label.DATASET_VERSION,
    IdKind.RUN: Label.RUN,
    IdKind.EXPERIMENT: Label.EXPERIMENT,
    IdKind.CHECKPOINT: Label.CHECKPOINT,
    IdKind.MODEL: Label.MODEL,
    IdKind.MODEL_VERSION: Label.MODEL_VERSION,
    IdKind.ENVIRONMENT: Label.ENVIRONMENT,
    IdKind.EVALUATION: Label.EVALUATION,
    IdKind.DEPLOYMENT: Label.DEPLOYMENT,
    IdKind.PROJECT: Label.PROJECT,
    IdKind.JOB: Label.JOB,
    IdKind.PRINCIPAL: Label.PRINCIPAL,
}


def label_of(entity_id: str) -> Label:
    """The node label of a typed id."""
    return _LABELS[parse_id(entity_id).kind]


@singledispatch
def project(event: Event, stamp: LogStamp) -> list[Mutation]:
    """Turn one event (and its log stamp) into graph mutations (pure). Each event type
    registers its function."""
    raise ProjectionError(f"no projection for event type {event.event_type!r}")


E = TypeVar("E", bound=Event)


def projects(cls: type[E]) -> Callable[[Callable[[E], list[Mutation]]], Any]:
    """Register `func` as the projection of events of type `cls` (the event alone decides)."""

    def wrap(func: Callable[[E], list[Mutation]]) -> Any:
        project.register(cls)(lambda event, _stamp: func(event))
        return func

    return wrap


def projects_logged(cls: type[E]) -> Callable[[Callable[[E, LogStamp], list[Mutation]]], Any]:
    """Register `func` as the projection of events of type `cls` that also reads the log's
    stamp (the rules that decide who wins by the log's order: grants, tokens, deletes)."""

    def wrap(func: Callable[[E, LogStamp], list[Mutation]]) -> Any:
        return project.register(cls)(func)

    return wrap


class Ctx:
    """Builders bound to one event: its version, time and project.

    `time` is the event's claim (`occurred_at`); `logged_at` the log's (the broker's append
    time, or `time` when the event is folded without its record). Versions are
    `<occurred_at>|<event_id>`, or `<logged_at>|<event_id>` with `by_log`: the order no
    client clock can choose.
    """

    def __init__(self, event: Event, stamp: LogStamp | None = None, *, by_log: bool = False):
        self.event = event
        self.time = format_time(event.occurred_at)
        self.logged_at = (stamp.logged_at if stamp else None) or self.time
        self.version = event_version(self.logged_at if by_log else self.time, str(event.event_id))

    def node(
        self,
        entity_id: str,
        *,
        defining: bool = False,
        props: Mapping[str, Value | None] | None = None,
        mins: Mapping[str, str | None] | None = None,
        maxs: Mapping[str, str | None] | None = None,
        versioned: Mapping[str, Versioned] | None = None,
    ) -> NodeUpsert:
        """A node upsert that writes the node (it claims an unowned run, checkpoint or
        evaluation for the event's project); None values are left out (an absent field
        changes nothing)."""
        lww = _stamped(props, self.version)
        if versioned:
            lww.update(versioned)
        return self._upsert(entity_id, defining, True, lww, _present(mins), _present(maxs))

    def ref(self, entity_id: str, names: Mapping[str, Value | None] | None = None) -> NodeUpsert:
        """A mention of another entity: a placeholder if it has not been seen yet. It writes
        nothing an event of the entity's own says, so it never claims it
        (`projection.ownership`). `names` are what the mention calls the entity (an
        OpenLineage input's namespace and name): kept under `storage.mention_version`, so they
        fill in what no event that wrote the entity said, and never change what one did. Only
        an entity whose id names its project can be named so (a run's owner is its claimer)."""
        if names and label_of(entity_id) in CLAIMED_LABELS:
            raise ProjectionError(f"a reference cannot name {entity_id}: its owner claims it")
        lww = _stamped(names, mention_version(self.version))
        return self._upsert(entity_id, False, False, lww, {}, {})

    def _upsert(
        self,
        entity_id: str,
        defining: bool,
        writes: bool,
        lww: dict[str, Versioned],
        mins: dict[str, str],
        maxs: dict[str, str],
    ) -> NodeUpsert:
        """The upsert of `entity_id` seen at the event's time, in the project its id names,
        else the event's; its id is parsed once for both that and its label (`label_of`)."""
        parsed = parse_id(entity_id)
        return NodeUpsert(
            id=entity_id,
            label=_LABELS[parsed.kind],
            project=parsed.project or self.event.project,
            defining=defining,
            first_seen=self.time,
            last_seen=self.time,
            writes=writes,
            lww=lww,
            mins=mins,
            maxs=maxs,
        )

    def edge(
        self,
        src: str,
        rel: Rel,
        dst: str,
        *,
        key: Mapping[str, str] | None = None,
        props: Mapping[str, Primitive | None] | None = None,
    ) -> EdgeUpsert:
        """A relationship from the derived `src` to its source `dst`."""
        clean = {k: v for k, v in (props or {}).items() if v is not None}
        return EdgeUpsert(
            src=src,
            src_label=label_of(src),
            rel=rel,
            dst=dst,
            dst_label=label_of(dst),
            key=dict(key or {}),
            version=self.version if clean else "",
            props=clean,
            first_seen=self.time,
        )

    def edge_set(self, src: str, rel: Rel, dst_label: Label, targets: Iterable[Target]) -> Mutation:
        """Replace every `rel` relationship of `src` with `targets`."""
        return EdgeSetReplace(src, label_of(src), rel, dst_label, self.version, tuple(targets))

    def linked(self, src: str, rel: Rel, dst: str | None, **key: str) -> list[Mutation]:
        """A placeholder-or-node for `dst` and the relationship to it; nothing when dst is None."""
        if dst is None:
            return []
        return [self.ref(dst), self.edge(src, rel, dst, key=key)]


def _stamped(props: Mapping[str, Value | None] | None, version: str) -> dict[str, Versioned]:
    """The `props` that are not None as last-writer-wins properties under `version`."""
    if not props:
        return {}
    return {k: Versioned(version, v) for k, v in props.items() if v is not None}


def _present(values: Mapping[str, str | None] | None) -> dict[str, str]:
    """The `values` that are not None (an absent field changes nothing), as a new map."""
    if not values:
        return {}
    return {k: v for k, v in values.items() if v is not None}


def copied(payload: object, *names: str) -> dict[str, Value | None]:
    """The `names` fields of `payload` as properties of the same names (`Ctx.node` leaves out
    the None ones)."""
    return {name: getattr(payload, name) for name in names}


def status(rank: int, value: str) -> dict[str, Versioned]:
    """Status as an LWW property whose version is its rank: it only ever moves forward."""
    return {"status": Versioned(rank_version(rank), value)}
