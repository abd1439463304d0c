"""Property: any order of a workload, with any duplicates, folds to the same graph."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from provgraph.ingest.projection.memory import MemoryGraph
from provgraph.ingest.projection.workload import Workload
from provgraph.schemas import Event


@st.composite
def shuffled_workloads(draw: st.DrawFn) -> tuple[list[Event], list[Event]]:
    seed = draw(st.integers(0, 10_000))
    events = Workload("p", seed).build(
        runs=draw(st.integers(1, 4)), datasets=draw(st.integers(1, 3))
    )
    order = draw(st.permutations(events))
    duplicates = draw(st.lists(st.sampled_from(events), max_size=10))
    mixed = draw(st.permutations([*order, *duplicates]))
    return events, mixed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shuffled_workloads())
def test_any_order_with_duplicates_folds_to_the_same_graph(
    case: tuple[list[Event], list[Event]],
) -> None:
    in_order, shuffled = case
    expected = MemoryGraph().fold(in_order).canonical()
    assert MemoryGraph().fold(shuffled).canonical() == expected


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_folding_twice_changes_nothing(seed: int, runs: int) -> None:
    events = Workload("p", seed).build(runs=runs)
    once = MemoryGraph().fold(events).canonical()
    assert MemoryGraph().fold([*events, *events]).canonical() == once
