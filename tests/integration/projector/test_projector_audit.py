"""Replay, verify and graph-hash against real Kafka and Neo4j, and through the CLI."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from neo4j import Driver
from support.numbering_story import Numbering
from support.projection_workload import Workload

from provgraph.cli import main
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay
from provgraph.ingest.tools.verify import graph_hash, log_digest, verify
from provgraph.schemas import Event

Produce = Callable[[IngestSettings, list[Event], list[bytes]], None]


def _wipe(driver: Driver, project: str, topic: str) -> None:
    driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)
    driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=topic)


def test_live_replayed_and_twice_replayed_graphs_hash_the_same_and_verify_clean(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce
) -> None:
    produce(settings, Workload(project, 3).build(runs=4, datasets=2), [b"{}"])
    with build_projector(settings, neo4j_driver) as projector:
        projector.run_until_idle(timeout_s=60)
    assert verify(settings, neo4j_driver, project) == []
    live = graph_hash(neo4j_driver, project)

    _wipe(neo4j_driver, project, settings.events_topic)
    writer = GraphWriter(neo4j_driver)
    records, applied, poison = replay(settings, writer, require_empty=False)
    assert (records - applied - poison, poison) == (0, 1)
    assert graph_hash(neo4j_driver, project) == live
    replay(settings, writer, require_empty=False)  # again, over itself: a no-op
    assert graph_hash(neo4j_driver, project) == live


def test_verify_reports_a_tampered_graph_and_the_cli_exits_non_zero(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    produce: Produce,
    cli_env: IngestSettings,
    capsys: pytest.CaptureFixture[str],
) -> None:
    produce(settings, Workload(project, 4).build(runs=2), [])
    replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    args = ["verify", "--topic", settings.events_topic, "--project", project]
    assert main(args) == 0
    err = capsys.readouterr().err  # the fold's progress, then the comparison
    assert "records (100.0%)" in err and "verify: log folded in" in err
    assert err.rstrip().endswith("verify: no differences")
    neo4j_driver.execute_query(
        "MATCH (n:Run {project: $p}) WITH n LIMIT 1 SET n.conclusion = 'edited'", p=project
    )
    assert main(args) == 1
    assert "conclusion = 'edited'" in capsys.readouterr().out
    assert main(["graph-hash", "--project", project]) == 0
    assert len(capsys.readouterr().out.strip()) == 64


def test_verify_spills_the_fold_and_lists_differences_part_by_part(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce, tmp_path: Path
) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    settings = settings.model_copy(update={"verify_spill_dir": str(spill)})
    produce(settings, Workload(project, 6).build(runs=30, datasets=3), [])
    replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert verify(settings, neo4j_driver, project) == []
    assert graph_hash(neo4j_driver, project) == log_digest(settings, project)
    assert list(spill.iterdir()) == []  # the fold's files are gone

    dropped = neo4j_driver.execute_query(
        "MATCH (e:AppliedEvent {project: $p}) WITH e ORDER BY e.event_id LIMIT 40 "
        "DETACH DELETE e RETURN count(*) AS n",
        p=project,
    ).records[0]["n"]
    every = verify(settings, neo4j_driver, project, limit=100_000)
    assert len([line for line in every if line.startswith("missing node event:")]) == dropped == 40
    short = verify(settings, neo4j_driver, project, limit=5)
    assert short[:5] == every[:5] and short[5].startswith("... and ")
    assert list(spill.iterdir()) == []


def test_numbers_given_live_are_those_replay_and_verify_give(
    settings: IngestSettings, neo4j_driver: Driver, project: str, produce: Produce
) -> None:
    # Runs of two experiments on several partitions, most left to number, some claiming a
    # number another holds, some resumed; the projector's batches several times smaller.
    s = Numbering(project)
    events = [s.created("a"), s.created("b"), s.created("c", number=1)]
    resumed: list[Event] = []
    for i in range(24):
        experiment = "ab"[i % 2]
        claim = 2 if i % 5 == 0 and i % 7 != 3 else None  # a resume claims none
        resumes = f"r{i - 2}" if i % 7 == 3 else None
        (resumed if resumes else events).append(
            s.started(f"r{i}", experiment, number=claim, resumes=resumes)
        )
    produce(settings, events, [])
    time.sleep(0.01)  # a resume starts after the run it resumes: later in the log
    produce(settings, resumed, [])
    settings = settings.model_copy(update={"projector_max_batch": 5})
    with build_projector(settings, neo4j_driver) as projector:
        projector.run_until_idle(timeout_s=60)
    assert verify(settings, neo4j_driver, project) == []
    live = graph_hash(neo4j_driver, project)
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (r:Run {project: $p})-[:PART_OF]->(x:Experiment) "
        "RETURN r.id AS id, x.id AS x, r.run_number AS n",
        p=project,
    )
    number = {r["id"]: r["n"] for r in records}
    assert len(number) == 24 and None not in number.values()
    for i in range(24):  # a resumed run shares its number; any other holds its own
        others = [number[s.run(f"r{j}")] for j in range(i % 2, 24, 2) if j != i]
        if i % 7 == 3:
            assert number[s.run(f"r{i}")] == number[s.run(f"r{i - 2}")]
        elif not any(i == j - 2 and j % 7 == 3 for j in range(24)):
            assert number[s.run(f"r{i}")] not in others, i

    _wipe(neo4j_driver, project, settings.events_topic)
    replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert graph_hash(neo4j_driver, project) == live
