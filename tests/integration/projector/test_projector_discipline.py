"""The records discipline in the projector, for events written straight to Kafka: a snapshot
that changes a recorded environment is dead-lettered (reason ``environment_changed``) while the
same snapshot again stays a no-op, and after `provgraph policy set --require-conclusion` a
run.completed without a conclusion is dead-lettered (``conclusion_required``), one with a
conclusion applied; verify agrees and replay refuses the same records."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import pytest
from contracts.discipline_facts import DisciplineFactsContract
from kafka import KafkaConsumer
from neo4j import Driver

from provgraph.cli.main import main
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay
from provgraph.ingest.tools.verify import graph_hash, verify
from provgraph.schemas import (
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
    projector = build_projector(settings, driver)
    projector.run_until_idle(timeout_s=60)
    projector.close()


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
    monkeypatch.setenv("PROVGRAPH_KAFKA_BOOTSTRAP", settings.kafka_bootstrap)
    monkeypatch.setenv("PROVGRAPH_EVENTS_TOPIC", settings.events_topic)
    monkeypatch.setenv("PROVGRAPH_DEAD_LETTER_TOPIC", settings.dead_letter_topic)
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
    live = graph_hash(neo4j_driver, project)
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)
    neo4j_driver.execute_query(
        "MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=settings.events_topic
    )
    records, applied, refused = replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    # 12 records: 5 snapshots (one a repeat of the same event), 3 starts, 3 completions, the
    # policy; applied: all but the repeat and the two refused.
    assert (records, applied, refused) == (12, 9, 2)
    assert graph_hash(neo4j_driver, project) == live
