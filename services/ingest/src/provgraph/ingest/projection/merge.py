"""The join of mutations: combining two into one, and folding one into stored properties.

The same rules run in the in-memory graph and (as Cypher) in the Neo4j writer; the writer
also uses `combine_*` to merge a batch's mutations per key before sending them, so each key
appears once per UNWIND and no row of a query depends on another row's write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    NodeUpsert,
    SeriesUpsert,
    Versioned,
)
from provgraph.ingest.projection.ownership import CLAIMED_LABELS, claims
from provgraph.schemas.storage import (
    CLAIMED,
    FIRST_SEEN_AT,
    ID,
    LAST_EVENT_AT,
    PLACEHOLDER,
    PROJECT,
    SERIES_NAME,
    SERIES_RUN,
    SeriesPoint,
    series_lists,
    series_stored,
    stored_value,
    version_key,
)

K = TypeVar("K")
V = TypeVar("V", Versioned, SeriesPoint)  # anything last-writer-wins by its `version`


def _join_lww(a: Mapping[K, V], b: Mapping[K, V]) -> dict[K, V]:
    out = dict(a)
    for key, item in b.items():
        if key not in out or item.version > out[key].version:
            out[key] = item
    return out


def _join(a: dict[str, str], b: dict[str, str], pick: Any) -> dict[str, str]:
    out = dict(a)
    for key, value in b.items():
        out[key] = pick(out[key], value) if key in out else value
    return out


def _says_project(m: NodeUpsert) -> bool:
    # Whose project wins: a claiming write for runs, checkpoints and evaluations (screened
    # batches hold one claiming project per node), the defining event for the other kinds.
    return claims(m) if m.label in CLAIMED_LABELS else m.defining


def combine_nodes(a: NodeUpsert, b: NodeUpsert) -> NodeUpsert:
    """One upsert with the effect of applying `a` and `b` (in either order)."""
    if _says_project(a) == _says_project(b):
        project = min(a.project, b.project)
    else:
        project = a.project if _says_project(a) else b.project
    return NodeUpsert(
        id=a.id,
        label=a.label,
        project=project,
        defining=a.defining or b.defining,
        first_seen=min(a.first_seen, b.first_seen),
        last_seen=max(a.last_seen, b.last_seen),
        writes=a.writes or b.writes,
        lww=_join_lww(a.lww, b.lww),
        mins=_join(dict(a.mins), dict(b.mins), min),
        maxs=_join(dict(a.maxs), dict(b.maxs), max),
    )


def combine_edges(a: EdgeUpsert, b: EdgeUpsert) -> EdgeUpsert:
    """The later-versioned of two upserts of the same relationship, first seen at the earlier."""
    later = b if b.version > a.version else a
    first_seen = (
        min(x for x in (a.first_seen, b.first_seen) if x) if a.first_seen or b.first_seen else ""
    )
    return replace(later, first_seen=first_seen)


def combine_sets(a: EdgeSetReplace, b: EdgeSetReplace) -> EdgeSetReplace:
    """The later-versioned of two replacements of the same relationship set."""
    return b if b.version > a.version else a


def combine_series(a: SeriesUpsert, b: SeriesUpsert) -> SeriesUpsert:
    """One upsert with the effect of applying `a` and `b` (of one series and one project)."""
    return replace(a, points=_join_lww(a.points, b.points))


def apply_node(props: dict[str, Any], m: NodeUpsert) -> None:
    """Fold `m` into a node's stored properties (the Cypher node upsert, in Python)."""
    if not props:
        props.update({
            ID: m.id, PLACEHOLDER: True, PROJECT: m.project,
            FIRST_SEEN_AT: m.first_seen, LAST_EVENT_AT: m.last_seen,
        })  # fmt: skip
    foreign = _fold_identity(props, m)
    props[FIRST_SEEN_AT] = min(props[FIRST_SEEN_AT], m.first_seen)
    props[LAST_EVENT_AT] = max(props[LAST_EVENT_AT], m.last_seen)
    if foreign:
        return
    _fold_lww(props, m.lww)
    for key, value in m.mins.items():
        if key not in props or value < props[key]:
            props[key] = value
    for key, value in m.maxs.items():
        if key not in props or value > props[key]:
            props[key] = value


def apply_series(props: dict[str, Any], m: SeriesUpsert) -> None:
    """Fold `m` into a series node's stored properties (the Cypher series upsert, in Python;
    the caller checks that the run is of `m.project`)."""
    if not props:
        props.update({ID: m.id, SERIES_RUN: m.run, SERIES_NAME: m.name, PROJECT: m.project})
    props.update(series_lists(_join_lww(series_stored(props), m.points)))


def _fold_lww(props: dict[str, Any], lww: Mapping[str, Versioned]) -> None:
    for key, item in lww.items():
        if props.get(version_key(key), "") < item.version:
            props[key] = stored_value(item.value)
            props[version_key(key)] = item.version


def _fold_identity(props: dict[str, Any], m: NodeUpsert) -> bool:
    """Fold `m` into `project`, `claimed` and `placeholder`; True when `m` writes a node
    another project claimed (its properties must not land: see `projection.ownership`)."""
    placeholder = props[PLACEHOLDER]
    # A defined run without `claimed` was written before claims were recorded: it is held too.
    held = m.label in CLAIMED_LABELS and (props.get(CLAIMED, False) or not placeholder)
    foreign = claims(m) and held and m.project != props[PROJECT]
    if held:  # a claimed node's project never changes
        if claims(m) and not foreign:
            props[CLAIMED] = True
    elif claims(m):
        props[PROJECT], props[CLAIMED] = m.project, True
    # Otherwise: the least project of the defining events, else of the mentions, a rule that
    # does not depend on arrival order (a run mentioned from two projects before it is written).
    elif (m.defining and placeholder) or (
        m.defining == (not placeholder) and m.project < props[PROJECT]
    ):
        props[PROJECT] = m.project
    if m.defining and not foreign:
        props[PLACEHOLDER] = False
    return foreign
