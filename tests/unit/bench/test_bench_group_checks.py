"""The group part's check where members number in their own order: every difference but those
in experiments' and runs' numbers still fails it."""

from __future__ import annotations

from support.numbering_story import Numbering

from benchmarks.pipeline import beyond_numbers
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.verify import compare
from provgraph.schemas import RunCompleted
from provgraph.schemas.events.run import RunCompletedPayload


def test_numbers_given_in_another_order_are_the_only_differences_let_through() -> None:
    s = Numbering("p")
    events = [s.created("a"), s.created("b")]
    events += [s.started(f"r{i}", "a", number=(2 if i == 3 else None)) for i in range(5)]
    reordered = [events[1], events[0], *events[2:][::-1]]  # numbered in another order
    differences = compare(MemoryGraph().fold(events), MemoryGraph().fold(reordered))
    assert len(differences) >= 6  # experiments' numbers, runs' numbers and claims
    assert any("run_number_claimed" in d for d in differences)
    assert beyond_numbers(differences) == []

    done = RunCompleted.create(
        project="p",
        producer="https://t/1",
        actor="user:t",
        payload=RunCompletedPayload(run_id=s.run_key("r0"), conclusion="kept"),
    )
    differences = compare(MemoryGraph().fold([*events, done]), MemoryGraph().fold(reordered))
    others = beyond_numbers(differences)
    assert any("conclusion" in d for d in others)  # the other difference still counts
    assert not any("number" in d for d in others)
