"""The benchmark workload generator: deterministic by seed, contract-valid, every type it claims."""

from __future__ import annotations

import itertools
import tracemalloc
from collections import Counter

from benchmarks.pipeline import Spilled
from benchmarks.workload import NAME_RULES, LlmWorkload, QueryRoots, build, query_roots, stream
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


def test_the_stream_is_the_built_list_byte_for_byte() -> None:
    for scale in (1, 1617, 5000):
        streamed = [e.to_json_bytes() for e in LlmWorkload(5).stream_events(scale)]
        assert streamed == [e.to_json_bytes() for e in LlmWorkload(5).build(scale)]
        assert len(streamed) == scale


def _held_peak(scale: int) -> int:
    tracemalloc.start()
    try:
        for _event in stream(scale):
            pass  # each event is dropped as soon as it is seen
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_what_the_stream_holds_does_not_grow_with_scale() -> None:
    small, large = _held_peak(20_000), _held_peak(200_000)  # ten times the events
    # A list would hold ten times as much at 200k; what grows here is the contract's bounded
    # id caches (65,536 entries each) filling up, not the stream (one project's events).
    assert large < 2 * small, (small, large)


def test_query_roots_read_a_stream_once_as_they_read_the_list() -> None:
    events = build(3 * SCALE)
    assert query_roots(iter(events)) == query_roots(events)
    roots = QueryRoots()
    passed = [roots.add(e) for e in stream(3 * SCALE)]
    assert roots.result() == query_roots(events)
    assert [e.event_id for e in passed] == [e.event_id for e in events]


def test_spilled_items_come_back_in_order_a_chunk_at_a_time() -> None:
    items = [(str(i).encode(), bytes(i % 7)) for i in range(2_345)]
    spilled: Spilled[tuple[bytes, bytes]] = Spilled(items, chunk=100)
    assert len(spilled) == 2_345
    assert list(spilled) == items
    assert [len(c) for c in spilled.chunks()] == [100] * 23 + [45]
    assert spilled.head(150) == items[:150]
    path = spilled.path
    del spilled
    assert not path.exists(), "the spill file is removed with its owner"


def test_each_project_ends_with_its_naming_rules_and_scales_up_a_pilot_per_experiment() -> None:
    events = build(3 * SCALE)
    graph = MemoryGraph().fold(events)
    policies = [i for i, e in enumerate(events) if e.event_type == "project.policy.set"]
    assert len(policies) >= 2
    for i in policies:  # the last event of its project, which declares the benchmark's rules
        event = events[i]
        assert event.payload.names.stated() == NAME_RULES
        assert not event.payload.require_names
        assert i + 1 == len(events) or events[i + 1].project != event.project
    pilots = {
        e.subject: e.payload.scaled_from
        for e in events
        if e.event_type == "run.started" and e.payload.scaled_from
    }
    project = events[0].project
    assert pilots[f"run:{project}-e3-r1"] == f"run:{project}-e3-r0"
    # Every scale-up is the second run of an experiment, its pilot the first.
    assert all(s == p.removesuffix("-r0") + "-r1" for s, p in pilots.items())
    assert len(pilots) >= 2 * 4  # two whole projects of four experiments
    assert {(s, "SCALED_FROM", p) for s, p in pilots.items()} <= {
        (src, rel, dst) for (src, rel, dst, _key) in graph.edges
    }
