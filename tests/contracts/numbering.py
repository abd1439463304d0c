"""Experiment and run numbers (`projection.numbering`) on every writer: assigned when absent,
unique in their scope, a taken claim renumbered with the claim kept, a resumed run sharing the
number of the run it continues; in batches several times smaller than the story, the same
numbers as the in-memory fold `verify` compares with, event by event.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from support.numbering_story import Numbering

from provgraph.ingest.ports import BatchWriter, GraphView
from provgraph.ingest.projection import project_event
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event


class NumberingContract(ABC):
    """Numbering on one writer; mixed into each writer's contract test."""

    project: str

    @abstractmethod
    def fresh(self) -> tuple[BatchWriter, GraphView]:
        """An empty graph for `self.project`."""

    def numbered(self, events: Sequence[Event], batch: int) -> dict[str, dict[str, Any]]:
        """Write `events` in order, `batch` per write; each node's number properties, checked
        equal to the in-memory fold of the events one by one."""
        writer, view = self.fresh()
        changes = [project_event(e) for e in events]
        for at in range(0, len(changes), batch):
            writer.write(changes[at : at + batch])
        graph = view.canonical(self.project)
        reference = MemoryGraph()
        for change in changes:
            reference.apply(change)
        assert graph == reference.canonical(self.project)
        keys = ("number", "number_claimed", "run_number", "run_number_claimed")
        return {
            node_id: {k: node["props"][k] for k in keys if k in node["props"]}
            for node_id, node in graph.nodes.items()
            if {"Experiment", "Run"} & set(node["labels"])
        }

    def test_numbers_are_given_when_absent_and_a_taken_claim_is_renumbered(self) -> None:
        s = Numbering(self.project)
        events = [
            s.created("a"),
            s.created("b", number=7),
            s.created("c", number=1),  # a holds 1: renumbered to 8
            s.created("d"),
            s.started("r1", "a"),
            s.started("r2", "a", number=5),
            s.started("r3", "a"),
            s.started("r4", "a", number=5),  # r2 holds 5
            s.started("r5", "a", number=2),  # free: kept, below the highest
            s.started("q1", "b"),  # another experiment numbers on its own
            s.started("loose", number=3),  # in no experiment: kept as stated
            s.started("bare"),  # in no experiment: not numbered
        ]
        for batch in (1, 3, len(events)):
            found = self.numbered(events, batch)
            assert found[s.experiment("a")] == {"number": 1}, batch
            assert found[s.experiment("b")] == {"number": 7}
            assert found[s.experiment("c")] == {"number": 8, "number_claimed": 1}
            assert found[s.experiment("d")] == {"number": 9}
            assert found[s.run("r1")] == {"run_number": 1}
            assert found[s.run("r2")] == {"run_number": 5}
            assert found[s.run("r3")] == {"run_number": 6}
            assert found[s.run("r4")] == {"run_number": 7, "run_number_claimed": 5}
            assert found[s.run("r5")] == {"run_number": 2}
            assert found[s.run("q1")] == {"run_number": 1}
            assert found[s.run("loose")] == {"run_number": 3}
            assert found[s.run("bare")] == {}

    def test_a_resumed_run_continues_the_number_of_the_run_it_resumes(self) -> None:
        s = Numbering(self.project)
        events = [
            s.created("a"),
            s.created("b"),
            s.started("r1", "a"),
            s.started("r1b", "a", resumes="r1"),  # no number: r1's
            s.started("r1c", "a", number=1, resumes="r1b"),  # r1's, claimed: kept
            s.started("r2", "a", number=1),  # not a resume: renumbered
            s.started("r3", "a", number=1, resumes="r2"),  # r2 holds 2, not 1
            s.started("x1", "b", resumes="r1"),  # a run of another experiment: not continued
        ]
        for batch in (1, 3):
            found = self.numbered(events, batch)
            assert found[s.run("r1")] == {"run_number": 1}, batch
            assert found[s.run("r1b")] == {"run_number": 1}
            assert found[s.run("r1c")] == {"run_number": 1}
            assert found[s.run("r2")] == {"run_number": 2, "run_number_claimed": 1}
            assert found[s.run("r3")] == {"run_number": 3, "run_number_claimed": 1}
            assert found[s.run("x1")] == {"run_number": 1}

    def test_a_subject_keeps_its_first_number_when_its_defining_event_comes_again(self) -> None:
        s = Numbering(self.project)
        events = [
            s.created("a"),
            s.started("r1", "a"),
            s.started("r2", "a"),
            s.started("r1", "a", number=2),  # r1 again, another event: still 1, claim kept
            s.started("r2", "a"),  # again without a number: still 2
            s.created("a", number=4),  # the experiment again: still 1
        ]
        for batch in (1, 2, len(events)):
            found = self.numbered(events, batch)
            assert found[s.run("r1")] == {"run_number": 1, "run_number_claimed": 2}, batch
            assert found[s.run("r2")] == {"run_number": 2}
            assert found[s.experiment("a")] == {"number": 1, "number_claimed": 4}

    def test_numbers_follow_the_order_of_the_writes_across_many_batches(self) -> None:
        s = Numbering(self.project)
        runs = 40
        events = [s.created("a")]
        events += [s.started(f"r{i}", "a", number=(i if i % 3 else None)) for i in range(runs)]
        found = self.numbered(events, batch=7)
        numbers = [found[s.run(f"r{i}")]["run_number"] for i in range(runs)]
        assert len(set(numbers)) == runs  # unique
        # stated numbers where free; the unnumbered get the next above the highest so far
        expected, top = [], 0
        for i in range(runs):
            given = i if i % 3 and i not in expected else top + 1
            expected.append(given)
            top = max(top, given)
        assert numbers == expected
