"""The projector's records-discipline screen on fakes of its ports: the policy in force for a
run.completed is the last one before it in the log's order, whatever the partitions and the
poll batches; a changed environment is dead-lettered, the same one again is a no-op."""

from __future__ import annotations

import pytest
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog

from provgraph.ingest.projector.loop import Projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    EnvironmentSnapshotRecorded,
    Event,
    ProjectPolicySet,
    RunCompleted,
    RunStarted,
    environment_id,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.policy import ProjectPolicySetPayload
from provgraph.schemas.events.run import RunCompletedPayload

pytestmark = pytest.mark.unit

P = "p"
SETTINGS = IngestSettings(projector_backoff_initial_s=0.5, projector_backoff_max_s=2.0)


def ev(cls: type[Event], payload: object) -> Event:
    return cls.create(project=P, producer="https://t/1", actor="u:t", payload=payload)


def policy(required: bool) -> Event:
    return ev(ProjectPolicySet, ProjectPolicySetPayload(require_conclusion=required))


def completed(run: str, conclusion: str | None = None) -> Event:
    return ev(RunCompleted, RunCompletedPayload(run_id=run, conclusion=conclusion))


def env(numpy: str) -> Event:
    payload = EnvironmentSnapshotRecordedPayload(key="img", packages={"numpy": numpy})
    return ev(EnvironmentSnapshotRecorded, payload)


def project(appends: list[tuple[int, Event]], max_records: int) -> tuple[MemoryGraph, list[str]]:
    """Append each (partition, event) in order (the log's clock moves on per append), run the
    projector until idle; the graph and the dead letters' (event_id, reason)."""
    log = FakeLog()
    for partition, event in appends:
        log.append(partition, event.kafka_key(), event.to_json_bytes())
    graph, letters = MemoryGraph(), FakeDeadLetters()
    Projector(SETTINGS, FakeEventSource(log, max_records), graph, letters).run_until_idle(5)
    return graph, [h["provgraph-reason"].decode() for _, _, h in letters.letters]


@pytest.mark.parametrize("max_records", [1, 3, 100])  # one batch, a few, one record each
def test_the_policy_in_force_is_the_last_before_in_log_order(max_records: int) -> None:
    starts = [(2, ev(RunStarted, RunStartedPayload(run_id=f"r{i}"))) for i in range(4)]
    story = [
        *starts,
        (1, completed("r0")),  # before the policy (another partition): applied
        (0, policy(True)),
        (1, completed("r1")),  # refused
        (1, completed("r2", "kept: it says what it taught")),
        (0, policy(False)),
        (1, completed("r3")),  # the policy was lifted: applied
    ]
    graph, reasons = project(story, max_records)
    assert reasons == ["conclusion_required"]
    status = {r: graph.nodes[f"run:{r}"][1]["status"] for r in ("r0", "r1", "r2", "r3")}
    assert status == {"r0": "completed", "r1": "running", "r2": "completed", "r3": "completed"}


@pytest.mark.parametrize("max_records", [1, 100])
def test_a_changed_environment_is_dead_lettered_and_the_first_contents_stay(
    max_records: int,
) -> None:
    first = env("1.26.4")
    story = [(0, first), (0, first), (0, env("1.26.4")), (0, env("2.0.0")), (0, env("1.26.4"))]
    graph, reasons = project(story, max_records)
    assert reasons == ["environment_changed"]
    props = graph.nodes[environment_id(P, "img")][1]
    assert props["package.numpy"] == "1.26.4"
