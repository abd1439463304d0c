"""Two members of one projector group number experiments and runs in the whole log's order, on
real Kafka and Neo4j: a member ahead of the other through a backlog waits at a numbering event
until the other has applied everything the log puts before it, so the graph's numbers are the
ones `verify` folds from the log, whichever member runs first."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from kafka import KafkaProducer
from neo4j import Driver
from support.numbering_story import Numbering

from provgraph.cli import main
from provgraph.ingest.projector.loop import Projector
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event

PARTITIONS = 3  # the test topic's
RUNS = 60  # over the three partitions, several times the batch (7) on each


@pytest.fixture()
def members(settings: IngestSettings, neo4j_driver: Driver) -> Iterator[list[Projector]]:
    """Two projectors of one group, each holding a share of the partitions."""
    exact = settings.model_copy(update={"projector_exact_group_numbers": True})
    group = [build_projector(exact, neo4j_driver) for _ in range(2)]
    try:
        _settle(group)
        yield group
    finally:
        for member in group:
            member.close()


def _settle(group: list[Projector]) -> None:
    """Both members step in threads of their own (a join waits for every member's poll) until
    each holds partitions and together they hold all."""
    done = threading.Event()

    def step(member: Projector) -> None:
        while not done.is_set():
            member.step()

    threads = [threading.Thread(target=step, args=(m,), daemon=True) for m in group]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    try:
        while True:
            held = [set(m.source.assigned()) for m in group]
            every = set().union(*held) == set(range(PARTITIONS))
            if all(held) and every and sum(map(len, held)) == PARTITIONS:
                break
            assert time.monotonic() < deadline, f"group not settled after 60 s: {held}"
            time.sleep(0.1)
    finally:
        done.set()
        for t in threads:
            t.join(timeout=30)


def _append(settings: IngestSettings, events: list[Event]) -> list[int]:
    """Each event to the next partition in turn, a few milliseconds apart (so the log's order
    is the order written); the partition of each."""
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    partitions = []
    try:
        for i, event in enumerate(events):
            partition = i % PARTITIONS
            producer.send(
                settings.events_topic, value=event.to_json_bytes(), partition=partition
            ).get(timeout=30)
            partitions.append(partition)
            time.sleep(0.003)
    finally:
        producer.close()
    return partitions


def _numbers(driver: Driver, s: Numbering, keys: list[str]) -> dict[str, int | None]:
    records, _, _ = driver.execute_query(
        "UNWIND $ids AS id OPTIONAL MATCH (r:Run {id: id}) RETURN id, r.run_number AS n",
        ids=[s.run(k) for k in keys],
    )
    by_id = {r["id"]: r["n"] for r in records}
    return {k: by_id[s.run(k)] for k in keys}


def _step_alone(member: Projector, seconds: float) -> int:
    """Step one member for `seconds`; the records it handled."""
    handled, until = 0, time.monotonic() + seconds
    while time.monotonic() < until:
        handled += member.step()
    return handled


def test_a_member_ahead_waits_at_numbering_events_for_the_other_member(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    members: list[Projector],
    cli_env: IngestSettings,
    capfd: pytest.CaptureFixture[str],
) -> None:
    s = Numbering(project)
    keys = [f"r{i}" for i in range(RUNS)]
    # every fifth run claims the number the run two before it holds
    events = [s.created("sweep")] + [
        s.started(k, "sweep", number=(i - 1 if i % 5 == 4 else None)) for i, k in enumerate(keys)
    ]
    partitions = _append(settings, events)
    first, second = members
    mine = set(first.source.assigned())

    handled = _step_alone(first, 5.0)  # the other member reads nothing meanwhile
    numbers = _numbers(neo4j_driver, s, keys)
    # it stopped at its first event after one of the other member's: numbered only its runs
    # before that one (events[0] is the experiment's)
    theirs = next(j for j, p in enumerate(partitions) if p not in mine)
    before = [k for i, k in enumerate(keys) if i + 1 < theirs and partitions[i + 1] in mine]
    assert [k for k in keys if numbers[k] is not None] == before
    assert handled < sum(p in mine for p in partitions)

    deadline = time.monotonic() + 120
    while not (first.caught_up() and second.caught_up()):
        first.step()
        second.step()
        assert time.monotonic() < deadline, "the members did not catch up in 120 s"
    numbers = _numbers(neo4j_driver, s, keys)
    # in the log's order: a claim of a number an earlier run holds is renumbered
    assert [numbers[k] for k in keys] == list(range(1, RUNS + 1))
    capfd.readouterr()
    assert main(["verify", "--topic", settings.events_topic, "--project", project]) == 0
    assert "verify: no differences" in capfd.readouterr().err
