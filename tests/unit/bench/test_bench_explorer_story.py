"""The explorer benchmark's wide project: contract-valid events whose answers reach ~1,000 nodes."""

from __future__ import annotations

from collections import defaultdict

from benchmarks.explorer_story import PROJECT, raw_version, wide_events
from provgraph.ingest.tools.memory_graph import MemoryGraph


def _downstream(graph: MemoryGraph, start: str, depth: int) -> set[str]:
    """Nodes within `depth` hops downstream (an edge points from the derived to its source)."""
    derived: dict[str, set[str]] = defaultdict(set)
    for src, _rel, dst, _key in graph.edges:
        derived[dst].add(src)
    reached, frontier = {start}, {start}
    for _ in range(depth):
        frontier = {d for node in frontier for d in derived[node]} - reached
        reached |= frontier
    return reached


def test_the_wide_story_folds_into_shards_runs_and_checkpoints() -> None:
    fan = 7
    events = wide_events(fan)
    assert len(events) == 2 + 3 * fan
    assert len({e.event_id for e in events}) == len(events)
    assert {e.project for e in events} == {PROJECT}
    graph = MemoryGraph().fold(events)
    assert raw_version() in graph.nodes
    # depth 2: the raw version, its shards, the runs that read them; depth 3 adds checkpoints
    assert len(_downstream(graph, raw_version(), 2)) == 1 + 2 * fan
    assert len(_downstream(graph, raw_version(), 3)) == 1 + 3 * fan
