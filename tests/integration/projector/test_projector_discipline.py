"""The records discipline in the projector, for events written straight to Kafka: a snapshot
that changes a recorded environment is dead-lettered (reason ``environment_changed``) while the
same snapshot again stays a no-op, and after `provgraph policy set --require-conclusion` a
run.completed without a conclusion is dead-lettered (``conclusion_required``), one with a
conclusion applied; verify agrees and replay refuses the same records. Once the policy requires
complete records (`provgraph policy set --require ... --require-passed-gates`), a run, dataset
version or approval that leaves out a required element, or a run that trains on data whose
gates did not pass, is dead-lettered (``record_incomplete``), also within a poll batch several
times the ingest batch limit."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest
from contracts.discipline_facts import DisciplineFactsContract
from kafka import KafkaConsumer
from neo4j import Driver
from support.record_policy import approved, evaluated, started, version

from provgraph.cli.main import main
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay
from provgraph.ingest.tools.verify import graph_hash, verify
from provgraph.schemas import (
    MAX_BATCH_EVENTS,
    EnvironmentSnapshotRecorded,
    Event,
    RunCompleted,
    RunStarted,
    environment_id,
    run_id,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.run import RunCompletedPayload

KEY = "trainer-cu121-2024-05"
PACKAGES = {"numpy": "1.26.4", "torch": "2.3.0"}


class TestDisciplineFactsOnNeo4j(DisciplineFactsContract):
    @pytest.fixture(autouse=True)
    def _bind(self, neo4j_driver: Driver, project: str) -> None:
        self.driver, self.project = neo4j_driver, project

    def fresh(self) -> GraphWriter:
        self.driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=self.project)
        return GraphWriter(self.driver)


def ev(cls: type[Event], project: str, payload: Any) -> Event:
    return cls.create(project=project, producer="https://e.com/t/1", actor="ci:t", payload=payload)


def snapshot(project: str, key: str = KEY, **changes: Any) -> Event:
    fields = {"key": key, "python_version": "3.11.8", "packages": PACKAGES, **changes}
    return ev(EnvironmentSnapshotRecorded, project, EnvironmentSnapshotRecordedPayload(**fields))


def project_log(settings: IngestSettings, driver: Driver) -> None:
    with build_projector(settings, driver) as projector:
        projector.run_until_idle(timeout_s=60)


def dead_letter_reasons(settings: IngestSettings) -> Counter[bytes]:
    consumer = KafkaConsumer(
        settings.dead_letter_topic,
        bootstrap_servers=settings.kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=3000,
    )
    found = Counter(dict(record.headers)["provgraph-reason"] for record in consumer)
    consumer.close()
    return found


def command_line_log(settings: IngestSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the command line at the test's topics."""
    monkeypatch.setenv("PROVGRAPH_KAFKA_BOOTSTRAP", settings.kafka_bootstrap)
    monkeypatch.setenv("PROVGRAPH_EVENTS_TOPIC", settings.events_topic)
    monkeypatch.setenv("PROVGRAPH_DEAD_LETTER_TOPIC", settings.dead_letter_topic)


def rebuilt(settings: IngestSettings, driver: Driver, project: str) -> tuple[int, int, int]:
    """Replay the whole log into an emptied graph; the graph must come back the same."""
    live = graph_hash(driver, project)
    driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)
    driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=settings.events_topic)
    counts = replay(settings, GraphWriter(driver), require_empty=False)
    assert graph_hash(driver, project) == live
    return counts


def test_the_projector_dead_letters_what_breaks_the_discipline(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    produce: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tag = uuid.uuid4().hex[:8]
    runs = [f"r{i}-{tag}" for i in range(3)]
    env, new = environment_id(project, KEY), environment_id(project, f"{KEY}-b")
    first = snapshot(project)
    changed = snapshot(project, packages={**PACKAGES, "numpy": "2.0.0"})
    successor = snapshot(project, f"{KEY}-b", packages={**PACKAGES, "numpy": "2.0.0"}, based_on=env)
    starts = [ev(RunStarted, project, RunStartedPayload(run_id=r)) for r in runs]
    bare_before = ev(RunCompleted, project, RunCompletedPayload(run_id=runs[0]))
    produce(
        settings, [first, first, snapshot(project), changed, successor, *starts, bare_before], []
    )
    project_log(settings, neo4j_driver)
    assert dead_letter_reasons(settings) == Counter({b"environment_changed": 1})

    # The project's admin sets the policy with the command line, straight to the log.
    command_line_log(settings, monkeypatch)
    assert main(["policy", "set", project, "--require-conclusion", "--reason", "write it"]) == 0
    project_log(settings, neo4j_driver)

    bare = ev(RunCompleted, project, RunCompletedPayload(run_id=runs[1]))
    told = ev(RunCompleted, project, RunCompletedPayload(run_id=runs[2], conclusion="2k warmup"))
    produce(settings, [bare, told], [])
    project_log(settings, neo4j_driver)
    assert dead_letter_reasons(settings) == Counter(
        {b"environment_changed": 1, b"conclusion_required": 1}
    )

    nodes = read_graph(neo4j_driver, project).nodes
    assert nodes[env]["props"]["package.numpy"] == "1.26.4"  # the first contents stay
    assert nodes[new]["props"]["package.numpy"] == "2.0.0"
    assert nodes[f"project:{project}"]["props"]["require_conclusion"] is True
    statuses = [nodes[run_id(r)]["props"]["status"] for r in runs]
    assert statuses == ["completed", "running", "completed"]
    assert nodes[run_id(runs[2])]["props"]["conclusion"] == "2k warmup"
    assert verify(settings, neo4j_driver, project) == []

    # A rebuild from the log refuses the same two records and gives the same graph.
    # 12 records: 5 snapshots (one a repeat of the same event), 3 starts, 3 completions, the
    # policy; applied: all but the repeat and the two refused.
    assert rebuilt(settings, neo4j_driver, project) == (12, 9, 2)


def test_the_projector_dead_letters_incomplete_records_by_the_log_order(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    produce: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = started(project, without=("code",))  # logged before the policy: kept
    produce(settings, [before], [])
    project_log(settings, neo4j_driver)
    command_line_log(settings, monkeypatch)
    requires = ["--require", "run:code", "--require", "dataset_version:source,licence"]
    requires += ["--require", "model_version:evaluation", "--require-passed-gates"]
    assert main(["policy", "set", project, *requires, "--reason", "audit-ready"]) == 0
    project_log(settings, neo4j_driver)

    clean = version(project, "clean", checks={"dedup": True})
    dirty = version(project, "dirty", checks={"dedup": True, "pii": False})
    unlicensed = version(project, "raw", without=("licence",), checks={"dedup": True})
    produce(settings, [clean, dirty, unlicensed, evaluated(project)], [])
    project_log(settings, neo4j_driver)
    on_clean = started(project, train=(clean.subject,))
    refused = [
        started(project, train=(clean.subject, dirty.subject)),
        started(project, without=("code",)),
        approved(project, "other-lm"),  # never evaluated
    ]
    produce(settings, [on_clean, approved(project), *refused], [])
    project_log(settings, neo4j_driver)
    assert dead_letter_reasons(settings) == Counter({b"record_incomplete": 4})
    nodes = read_graph(neo4j_driver, project).nodes
    assert before.subject in nodes and on_clean.subject in nodes and clean.subject in nodes
    assert all(e.subject not in nodes for e in (unlicensed, refused[0], refused[1]))
    assert nodes[approved(project).subject]["props"]["status"] == "approved"
    assert nodes[f"project:{project}"]["props"]["require_passed_gates"] is True

    # One poll batch three times the ingest batch limit: exactly the incomplete are refused.
    bare = ("experiment", "environment", "inputs", "run_number")
    many = [
        started(project, without=(*bare, "code") if n % 7 == 0 else bare)
        for n in range(3 * MAX_BATCH_EVENTS)
    ]
    produce(settings, many, [])
    wide = settings.model_copy(update={"projector_max_batch": 4 * MAX_BATCH_EVENTS})
    project_log(wide, neo4j_driver)
    incomplete = sum(1 for n in range(3 * MAX_BATCH_EVENTS) if n % 7 == 0)
    assert dead_letter_reasons(settings) == Counter({b"record_incomplete": 4 + incomplete})
    assert verify(settings, neo4j_driver, project) == []
    records = 1 + 1 + 4 + 5 + len(many)  # before, the policy, 4 then 5, the many
    assert rebuilt(settings, neo4j_driver, project) == (
        records,
        records - 4 - incomplete,
        4 + incomplete,
    )
