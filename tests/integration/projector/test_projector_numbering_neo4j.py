"""Experiment and run numbers on real Neo4j when several writers number one scope at once (the
members of a projector group): the scope's lock makes them give numbers one after the other,
so no number is given twice, in a scope new to every writer too."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import pytest
from neo4j import Driver
from support.numbering_story import Numbering

from provgraph.ingest.projection import EventMutations, project_event
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.schemas import Event
from provgraph.schemas.graph import NUMBERING_LOCK_LABEL

WRITERS = 3
BATCHES = 12  # per writer, each of...
PER_BATCH = 2  # ... subjects left to number, or claiming a number another writer claims too


def write_at_once(driver: Driver, batches: dict[int, list[list[Event]]]) -> None:
    """Each writer's batches written by a writer of its own, all starting together."""
    start, failures = threading.Barrier(len(batches)), []
    changes: dict[int, list[list[EventMutations]]] = {
        w: [[project_event(e) for e in batch] for batch in mine] for w, mine in batches.items()
    }

    def write(w: int) -> None:
        writer = GraphWriter(driver)
        start.wait()
        try:
            for batch in changes[w]:
                writer.write(batch)
        except Exception as exc:  # reported below, with the writer
            failures.append((w, exc))

    threads = [threading.Thread(target=write, args=(w,)) for w in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert failures == []


def batches_of(make: Callable[[int, int, int], Event]) -> dict[int, list[list[Event]]]:
    return {
        w: [[make(w, b, i) for i in range(PER_BATCH)] for b in range(BATCHES)]
        for w in range(WRITERS)
    }


def each_once(numbers: Sequence[int]) -> bool:
    return sorted(numbers) == list(range(1, WRITERS * BATCHES * PER_BATCH + 1))


@pytest.mark.parametrize("created_first", [True, False], ids=["experiment", "new-experiment"])
def test_writers_numbering_one_experiment_at_once_never_give_a_number_twice(
    neo4j_driver: Driver, project: str, created_first: bool
) -> None:
    apply_schema(neo4j_driver)
    s = Numbering(project)
    if created_first:
        GraphWriter(neo4j_driver).write([project_event(s.created("sweep"))])
    write_at_once(
        neo4j_driver,
        batches_of(
            lambda w, b, i: s.started(f"w{w}-b{b}-r{i}", "sweep", number=(b + 1 if i else None))
        ),
    )
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (r:Run)-[:PART_OF]->(:Experiment {id: $x}) "
        "RETURN r.run_number AS n, r.run_number_claimed AS claimed",
        x=s.experiment("sweep"),
    )
    numbers = [r["n"] for r in records]
    assert each_once(numbers)  # each once, no gap
    # a claim was renumbered only because another run held the number first
    claimed = [r["claimed"] for r in records if r["claimed"] is not None]
    assert len(claimed) >= (WRITERS - 1) * BATCHES  # three writers claim each of 1..BATCHES
    assert set(claimed) <= set(numbers)
    locks = neo4j_driver.execute_query(
        f"MATCH (l:{NUMBERING_LOCK_LABEL} {{scope: $scope}}) RETURN properties(l) AS props",
        scope=f"Run:{s.experiment('sweep')}",
    ).records
    assert [r["props"] for r in locks] == [{"scope": f"Run:{s.experiment('sweep')}"}]


def test_writers_creating_experiments_of_one_project_at_once_never_give_a_number_twice(
    neo4j_driver: Driver, project: str
) -> None:
    apply_schema(neo4j_driver)
    s = Numbering(project)  # a project with no Project node: no grant, no policy
    write_at_once(neo4j_driver, batches_of(lambda w, b, i: s.created(f"w{w}-b{b}-x{i}")))
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (x:Experiment) WHERE x.id STARTS WITH $prefix RETURN x.number AS n",
        prefix=f"experiment:{project}/",
    )
    assert each_once([r["n"] for r in records])
