"""What Neo4j (and its driver) can store, checked on an event's mutations before any write.

The contract already refuses most values a store cannot hold; this check is the projector's
own, so that every known refusal is decided from the event alone, the same way live, in
`replay` and in `verify` (which folds in memory, where anything would fit). A write the store
refuses anyway is isolated by the projector (`provgraph.ingest.projector.batch`).

Neo4j stores a property as a primitive (64-bit integer, float, boolean, string) or an array of
primitives of one type; the driver encodes text as UTF-8 (a lone surrogate cannot be).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from operator import attrgetter
from typing import Any

from provgraph.ingest.projection import event_props
from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    EventMutations,
    Mutation,
    NodeUpsert,
    ResolveReads,
    SeriesUpsert,
)
from provgraph.ingest.projector.rejections import StoreRejected

INT64 = (-(2**63), 2**63 - 1)


def check_storable(change: EventMutations) -> None:
    """Raise `StoreRejected` naming the first value of `change` that Neo4j cannot store."""
    # A batch holds hundreds of thousands of values, nearly all plainly storable: they are
    # first tested in bulk, without saying where each sits. Only an event holding a value
    # that is not plainly storable is walked value by value, to name the first that fails.
    if _plainly_storable(change):
        return
    for (where, sep, key), value in _values(change):
        if _fine(value):
            continue
        problem = _problem(value)
        if problem is not None:
            raise StoreRejected(f"{where}{sep}{key}: {problem}")


# ---- in bulk: a quick yes for the common event -----------------------------------------------


def _plainly_storable(change: EventMutations) -> bool:
    """True when every value `_values` yields for `change` passes `_fine`; False means: walk
    it (`_values`). It tests a superset of those values (the key and other properties of an
    edge apart, where the walk sees them merged), so it errs only towards False."""
    texts: list[Any] = list(event_props(change.record).values())
    texts.extend(change.record.touched)
    values: list[Any] = []
    try:
        for m in change.mutations:
            gather = _GATHER.get(type(m))
            if gather is None:  # a subclass: the walk tells it apart by isinstance
                return False
            gather(m, texts, values)
        # Texts the contract types as `str` are tested at once; a non-text fails the join.
        return "".join(texts).isascii() and _all_fine(values)
    except Exception:  # an ill-formed mutation: the walk decides what is raised, and when
        return False


def _all_fine(values: list[Any]) -> bool:
    """`_fine` of every value, inlined: it runs for each property of each event."""
    low, high = INT64
    finite = math.isfinite
    for value in values:
        kind = type(value)
        if kind is float:
            if not finite(value):
                return False
        elif kind is str:
            if not value.isascii():
                return False
        elif kind is int:
            if not low <= value <= high:
                return False
        elif kind is not bool:
            return False
    return True


_value_of = attrgetter("value")


def _gather_node(m: NodeUpsert, texts: list[Any], values: list[Any]) -> None:
    texts.append(m.id)
    texts.extend(m.lww)
    values.extend(map(_value_of, m.lww.values()))
    for bound in (m.mins, m.maxs):
        texts.extend(bound)
        texts.extend(bound.values())


def _gather_edge(m: EdgeUpsert, texts: list[Any], values: list[Any]) -> None:
    texts.extend(m.key)
    texts.extend(m.key.values())
    texts.extend(m.props)
    values.extend(m.props.values())


def _gather_edge_set(m: EdgeSetReplace, texts: list[Any], values: list[Any]) -> None:
    for target in m.targets:
        texts.extend(target.props)
        values.extend(target.props.values())


def _gather_series(m: SeriesUpsert, texts: list[Any], values: list[Any]) -> None:
    texts.append(m.id)
    for point in m.points.values():
        values.append(point.step)
        values.append(point.value)


def _gather_reads(m: ResolveReads, texts: list[Any], values: list[Any]) -> None:
    texts.append(m.subject)


# What each kind of mutation stores: ids and property names go to the texts, property values
# to the values (the same ones `_mutation_values` yields).
_GATHER: dict[type, Callable[[Any, list[Any], list[Any]], None]] = {
    NodeUpsert: _gather_node,
    EdgeUpsert: _gather_edge,
    EdgeSetReplace: _gather_edge_set,
    SeriesUpsert: _gather_series,
    ResolveReads: _gather_reads,
}


# ---- value by value: naming where a refused value sits --------------------------------------

Where = tuple[str, str, str]  # (thing, separator, key): joined only to name a refused value


def _values(change: EventMutations) -> Iterator[tuple[Where, Any]]:
    for key, value in event_props(change.record).items():
        yield ("AppliedEvent", ".", key), value
    yield from ((("AppliedEvent", ".", "touched"), node_id) for node_id in change.record.touched)
    for m in change.mutations:
        yield from _mutation_values(m)


def _mutation_values(m: Mutation) -> Iterator[tuple[Where, Any]]:
    if isinstance(m, NodeUpsert):
        yield (m.id, ".", "id"), m.id
        yield from _props(m.id, {k: v.value for k, v in m.lww.items()})
        yield from _props(m.id, m.mins)
        yield from _props(m.id, m.maxs)
    elif isinstance(m, EdgeUpsert):
        where = f"{m.src} -[{m.rel.value}]-> {m.dst}"
        yield from _props(where, {**m.key, **m.props})
    elif isinstance(m, EdgeSetReplace):
        for target in m.targets:
            yield from _props(f"{m.src} -[{m.rel.value}]-> {target.id}", target.props)
    elif isinstance(m, SeriesUpsert):
        yield (m.id, ".", "id"), m.id
        for point in m.points.values():
            yield (m.id, " ", f"step {point.step}"), point.step
            yield (m.id, " ", f"value at step {point.step}"), point.value
    elif isinstance(m, ResolveReads):
        yield ("ResolveReads", ".", "subject"), m.subject


def _props(where: str, props: Mapping[str, Any]) -> Iterator[tuple[Where, Any]]:
    for key, value in props.items():
        yield (where, " property name", ""), key
        yield (where, ".", key), value


def _fine(value: Any) -> bool:
    """A quick yes for the values nearly every event holds (ASCII text, finite floats,
    booleans, small integers); False means: look closer (`_problem`)."""
    kind = type(value)
    if kind is str:
        return bool(value.isascii())
    if kind is float:
        return math.isfinite(value)
    return kind is bool or (kind is int and INT64[0] <= value <= INT64[1])


def _problem(value: Any) -> str | None:
    if isinstance(value, tuple | list):
        return _array_problem(list(value))
    return _scalar_problem(value)


def _scalar_problem(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        low, high = INT64
        return None if low <= value <= high else f"integer {value} is outside 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text that is not valid UTF-8 (a lone surrogate)"
        return None
    return f"a {type(value).__name__} is not a property value"


def _array_problem(values: list[Any]) -> str | None:
    kinds = {_kind(v) for v in values}
    if len(kinds) > 1:
        return f"an array of mixed types ({', '.join(sorted(kinds))})"
    for value in values:
        if isinstance(value, tuple | list):
            return "an array nested in an array"
        problem = _scalar_problem(value)
        if problem is not None:
            return f"in an array: {problem}"
    return None


def _kind(value: Any) -> str:
    # bool before int: True is an int to Python, a boolean to Neo4j.
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"  # an array of integers and floats is stored as floats
    return type(value).__name__
