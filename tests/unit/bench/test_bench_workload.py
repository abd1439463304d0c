"""The benchmark workload generator: deterministic by seed, contract-valid, every type it claims."""

from __future__ import annotations

import itertools
from collections import Counter

from benchmarks.workload import LlmWorkload, build, query_roots
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import parse_event

SCALE = 2000  # a bit more than one project, which holds every event type


def test_same_seed_gives_the_same_events() -> None:
    first = [e.to_json_bytes() for e in build(SCALE, seed=3)]
    again = [e.to_json_bytes() for e in build(SCALE, seed=3)]
    assert first == again
    assert first != [e.to_json_bytes() for e in build(SCALE, seed=4)]


def test_exactly_scale_events_with_unique_ids() -> None:
    events = build(SCALE)
    assert len(events) == SCALE
    assert len({e.event_id for e in events}) == SCALE


def test_every_event_is_contract_valid_and_every_claimed_type_appears() -> None:
    events = build(SCALE)
    for event in events:
        assert parse_event(event.to_json_bytes()) == event
    counts = Counter(e.event_type for e in events)
    assert set(counts) == set(LlmWorkload.EVENT_TYPES)


def test_timestamps_never_go_back() -> None:
    events = build(SCALE)
    assert all(a.occurred_at <= b.occurred_at for a, b in itertools.pairwise(events))


def test_query_start_nodes_exist_and_the_downstream_ones_are_read_by_a_derivation() -> None:
    events = build(3 * SCALE)
    tops, bottoms = query_roots(events)
    graph = MemoryGraph().fold(events)
    assert tops and len(tops) == len(bottoms)
    assert all(node in graph.nodes for node in tops + bottoms)
    derived_from = {dst for (_src, rel, dst, _key) in graph.edges if rel == "DERIVED_FROM"}
    assert set(bottoms) <= derived_from, "a downstream start node must feed something"
