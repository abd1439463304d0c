"""The store check names where a refused value sits, wherever it sits in an event's mutations,
and lets through every value Neo4j stores, also those that are not plainly storable at a glance
(text beyond ASCII, arrays, subclasses of the primitive types)."""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

import pytest
from support.projection_story import Story

from provgraph.ingest.projection import EventMutations, project_event
from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    Mutation,
    NodeUpsert,
    ResolveReads,
    SeriesUpsert,
    Target,
    Versioned,
)
from provgraph.ingest.projector.rejections import StoreRejected
from provgraph.ingest.projector.storable import check_storable
from provgraph.schemas.graph import Label, Rel

S = Story("p")
SERIES = project_event(S.series(1, 2, ("loss", 5, 0.5), ("loss", 700, 0.25)))
STARTED = project_event(S.started())


def unchecked(value: object) -> Any:
    """`value` where the types allow none of its kind: what the check is there to catch."""
    return value


def replaced(change: EventMutations, kind: type, **fields: Any) -> EventMutations:
    """`change` with the first mutation of `kind` changed so."""
    i = next(i for i, m in enumerate(change.mutations) if isinstance(m, kind))
    mutations = list(change.mutations)
    mutations[i] = dataclasses.replace(mutations[i], **fields)
    return EventMutations(change.record, tuple(mutations))


def plus(change: EventMutations, *extra: Mutation) -> EventMutations:
    return EventMutations(change.record, (*change.mutations, *extra))


def refusal(change: EventMutations) -> str:
    with pytest.raises(StoreRejected) as caught:
        check_storable(change)
    return str(caught.value)


def test_a_value_deep_in_a_series_is_named_by_its_series_and_step() -> None:
    series = next(m for m in SERIES.mutations if isinstance(m, SeriesUpsert))
    last = max(series.points)
    points = {**series.points, last: series.points[last]._replace(value=float("nan"))}
    assert refusal(replaced(SERIES, SeriesUpsert, points=points)) == (
        "run:p-r1#loss value at step 700: nan is not a finite number"
    )


def test_a_series_of_a_run_id_that_is_not_utf8_is_named_by_its_id() -> None:
    change = replaced(SERIES, SeriesUpsert, run="run:p-\ud800")
    assert refusal(change) == (
        "run:p-\ud800#loss.id: text that is not valid UTF-8 (a lone surrogate)"
    )


def test_an_edge_property_is_named_by_its_edge() -> None:
    edge = EdgeUpsert(
        "run:x", Label.RUN, Rel.USED, "run:y", Label.RUN, props={"w": unchecked((1, "a"))}
    )
    assert refusal(plus(STARTED, edge)) == (
        "run:x -[USED]-> run:y.w: an array of mixed types (number, str)"
    )


def test_an_edge_key_is_checked_as_the_edge_stores_it_merged_with_its_properties() -> None:
    key = {"role": "train", "w": unchecked(2**64)}
    overridden = EdgeUpsert("run:x", Label.RUN, Rel.USED, "run:y", Label.RUN, key, props={"w": 1})
    check_storable(plus(STARTED, overridden))  # the property is what the edge stores under w
    kept = dataclasses.replace(overridden, props={})
    assert refusal(plus(STARTED, kept)) == (
        f"run:x -[USED]-> run:y.w: integer {2**64} is outside 64 bits"
    )


def test_a_property_of_a_replaced_set_is_named_by_its_target() -> None:
    targets = (Target("model:p/a", {"w": 1}), Target("model:p/b", {"w": unchecked(((1,),))}))
    replace = EdgeSetReplace("run:x", Label.RUN, Rel.USED, Label.RUN, "v", targets)
    assert refusal(plus(STARTED, replace)) == (
        "run:x -[USED]-> model:p/b.w: an array nested in an array"
    )


def test_a_property_name_is_checked_too() -> None:
    node = NodeUpsert("run:x", Label.RUN, "p", True, "t", "t", mins={"at\udc80": "t"})
    assert refusal(plus(STARTED, node)) == (
        "run:x property name: text that is not valid UTF-8 (a lone surrogate)"
    )


@pytest.mark.parametrize(
    ("record", "why"),
    [
        ({"actor": "user:\ud800"}, "AppliedEvent.actor: text that is not valid UTF-8"),
        ({"principal": 2**70}, f"AppliedEvent.principal: integer {2**70} is outside 64 bits"),
        ({"touched": frozenset({"run:\ud800"})}, "AppliedEvent.touched: text that is not"),
    ],
)
def test_the_applied_event_is_checked_too(record: dict[str, Any], why: str) -> None:
    change = EventMutations(dataclasses.replace(STARTED.record, **record), STARTED.mutations)
    assert refusal(change).startswith(why)


def test_a_subject_to_resolve_is_checked_too() -> None:
    change = replaced(STARTED, ResolveReads, subject=1.5j)
    assert refusal(change) == "ResolveReads.subject: a complex is not a property value"


def test_the_first_value_refused_is_the_one_named() -> None:
    first = NodeUpsert(
        "run:x", Label.RUN, "p", True, "t", "t", lww={"a": Versioned("1", unchecked(None))}
    )
    later = EdgeUpsert("run:x", Label.RUN, Rel.USED, "run:y", Label.RUN, props={"w": 2**64})
    assert refusal(plus(STARTED, first, later)) == "run:x.a: a NoneType is not a property value"
    assert refusal(plus(STARTED, later, first)).startswith("run:x -[USED]-> run:y.w: integer")


class Colour(StrEnum):
    RED = "red"


class Count(int):
    pass


@pytest.mark.parametrize(
    "value",
    ["déjà vu", "🙂", ("a", "é"), (), (1, 2.5), [True, False], Colour.RED, Count(3), 2**63 - 1],
)
def test_values_stored_though_not_plainly_storable_pass(value: object) -> None:
    lww = {"v": Versioned("1", unchecked(value))}
    node = NodeUpsert("run:é", Label.RUN, "p", True, "t", "t", lww=lww, maxs={"é": "ü"})
    edge = EdgeUpsert(
        "run:é", Label.RUN, Rel.USED, "run:y", Label.RUN, props={"é": unchecked(value)}
    )
    check_storable(plus(STARTED, node, edge))


def test_a_mutation_of_a_subclass_is_checked_as_its_kind() -> None:
    class Upsert(NodeUpsert):
        pass

    node = Upsert("run:x", Label.RUN, "p", True, "t", "t", lww={"a": Versioned("1", 2**64)})
    assert refusal(plus(STARTED, node)) == f"run:x.a: integer {2**64} is outside 64 bits"
