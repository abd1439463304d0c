"""Experiment and run numbers on real Neo4j when several writers number one scope at once (the
members of a projector group): the scope's lock makes them give numbers one after the other,
so no number is given twice."""

from __future__ import annotations

import threading

from neo4j import Driver
from support.numbering_story import Numbering

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.writer import GraphWriter

WRITERS = 3
BATCHES = 12  # per writer, each of...
RUNS_PER_BATCH = 2  # ... runs left to number, or claiming a number another writer claims too


def test_writers_numbering_one_experiment_at_once_never_give_a_number_twice(
    neo4j_driver: Driver, project: str
) -> None:
    apply_schema(neo4j_driver)
    s = Numbering(project)
    GraphWriter(neo4j_driver).write([project_event(s.created("sweep"))])
    batches = {
        w: [
            [
                project_event(s.started(f"w{w}-b{b}-r{r}", "sweep", number=(b + 1 if r else None)))
                for r in range(RUNS_PER_BATCH)
            ]
            for b in range(BATCHES)
        ]
        for w in range(WRITERS)
    }
    start, failures = threading.Barrier(WRITERS), []

    def write(w: int) -> None:
        writer = GraphWriter(neo4j_driver)
        start.wait()
        try:
            for batch in batches[w]:
                writer.write(batch)
        except Exception as exc:  # reported below, with the writer
            failures.append((w, exc))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert failures == []
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (r:Run)-[:PART_OF]->(:Experiment {id: $x}) "
        "RETURN r.run_number AS n, r.run_number_claimed AS claimed",
        x=s.experiment("sweep"),
    )
    numbers = [r["n"] for r in records]
    assert len(numbers) == WRITERS * BATCHES * RUNS_PER_BATCH
    assert sorted(numbers) == list(range(1, len(numbers) + 1))  # each once, no gap
    # a claim was renumbered only because another run held the number first
    claimed = [r["claimed"] for r in records if r["claimed"] is not None]
    assert len(claimed) >= (WRITERS - 1) * BATCHES  # three writers claim each of 1..BATCHES
    assert set(claimed) <= set(numbers)
    leftover = neo4j_driver.execute_query(
        "MATCH (n:Experiment) WHERE n.`_numbering` IS NOT NULL RETURN count(n) AS n"
    ).records[0]["n"]
    assert leftover == 0  # the lock leaves nothing behind
