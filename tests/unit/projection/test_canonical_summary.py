"""The graph's digest per part (`canonical.Summary`): order-free, a multiset, one part per
change, and the same hash `CanonicalGraph.digest` gives; a graph kept for some parts only."""

from __future__ import annotations

import random
from typing import Any

from provgraph.ingest.projection.canonical import PARTS, CanonicalGraph, Summary, part_of

Item = tuple[str, Any]


def _items(count: int) -> list[Item]:
    items: list[Item] = []
    for i in range(count):
        items.append(("node", (f"run:{i}", ["Entity", "Run"], {"n": i, "tags": ("a", "b")})))
        items.append(("edge", (f"run:{i}", "USED", f"dataset:p/d@{i % 7}", {"role": "train"})))
    return items


def _feed(sink: Any, items: list[Item]) -> Any:
    for kind, args in items:
        (sink.add_node if kind == "node" else sink.add_edge)(*args)
    return sink


def test_the_summary_hashes_what_the_canonical_graph_hashes_in_any_order() -> None:
    items = _items(500)  # spread over every part several times
    expected = _feed(CanonicalGraph(), items).finish()
    for seed in range(5):
        shuffled = random.Random(seed).sample(items, len(items))
        summary = _feed(Summary(), shuffled)
        assert summary.digest() == expected.digest()
        assert summary.differing(expected.summary()) == []
        assert summary.size == len(items)


def test_one_changed_property_changes_exactly_its_part() -> None:
    items = _items(300)
    base = _feed(Summary(), items)
    changed = list(items)
    changed[10] = ("node", ("run:5", ["Entity", "Run"], {"n": 5, "tags": ("a", "c")}))
    other = _feed(Summary(), changed)
    assert other.digest() != base.digest()
    assert base.differing(other) == [part_of("run:5")]


def test_a_relationship_twice_is_not_the_same_as_once() -> None:
    items = _items(3)
    twice = [*items, items[1]]
    assert _feed(Summary(), twice).differing(_feed(Summary(), items)) == [part_of("run:0")]


def test_a_relationship_belongs_to_its_source_part() -> None:
    src = "run:42"
    graph = CanonicalGraph(parts={part_of(src)})
    graph.add_edge(src, "USED", "dataset:p/d@1", {})
    other = next(f"run:{i}" for i in range(100) if part_of(f"run:{i}") != part_of(src))
    graph.add_edge(other, "USED", src, {})  # points at the part, leaves another one
    assert graph.finish().edges == ["run:42 -[USED {}]-> dataset:p/d@1"]


def test_a_graph_of_some_parts_keeps_exactly_theirs() -> None:
    items = _items(400)
    whole = _feed(CanonicalGraph(), items).finish()
    chosen = {0, 1, PARTS - 1}
    part = _feed(CanonicalGraph(parts=chosen), items).finish()
    assert set(part.nodes) == {k for k in whole.nodes if part_of(k) in chosen}
    assert 0 < len(part.nodes) < len(whole.nodes)
    assert part.summary().differing(whole.summary()) == [
        p for p in range(PARTS) if p not in chosen and whole.summary().counts[p]
    ]


def test_the_parts_spread_the_keys() -> None:
    used = {part_of(f"event:{i:08d}") for i in range(PARTS * 8)}
    assert len(used) > PARTS * 0.9
