"""The projector's records-discipline screen on fakes of its ports: the policy in force for a
run.completed is the last one before it in the log's order, whatever the partitions and the
poll batches, and so is the one for complete records (a dataset version's gates and a model
version's evaluation count once appended); a changed environment is dead-lettered, the same
one again is a no-op."""

from __future__ import annotations

import pytest
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog
from support.record_policy import approved, evaluated, model_version, started, version
from support.record_policy import policy as policy_of

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
from provgraph.schemas.envelope import Payload
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.run import RunCompletedPayload
from provgraph.schemas.records import RecordKind

pytestmark = pytest.mark.unit

P = "p"
SETTINGS = IngestSettings(projector_backoff_initial_s=0.5, projector_backoff_max_s=2.0)


def ev(cls: type[Event], payload: Payload) -> Event:
    return cls.create(project=P, producer="https://t/1", actor="u:t", payload=payload)


def policy(required: bool) -> Event:
    return ev(ProjectPolicySet, policy_payload(require_conclusion=required))


def completed(run: str, conclusion: str | None = None) -> Event:
    return ev(RunCompleted, RunCompletedPayload(run_id=run, conclusion=conclusion))


def env(numpy: str) -> Event:
    payload = EnvironmentSnapshotRecordedPayload(key="img", packages={"numpy": numpy})
    return ev(EnvironmentSnapshotRecorded, payload)


def project(
    appends: list[tuple[int, Event]], max_records: int, gap_ms: int = 0
) -> tuple[MemoryGraph, list[str]]:
    """Append each (partition, event) in order (the log's clock moves on per append, and
    `gap_ms` more), run the projector until idle; the graph and the dead letters' reasons."""
    log = FakeLog()
    for partition, event in appends:
        log.clock_ms += gap_ms
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


@pytest.mark.parametrize("max_records", [1, 3, 100])
def test_incomplete_records_are_judged_by_the_log_order_across_partitions(
    max_records: int,
) -> None:
    crawl = version(P, "crawl", checks={"dedup": True})
    early, bare = started(P, without=("code",)), started(P, without=("code",))
    too_soon, trains = started(P, train=(crawl.subject,)), started(P, train=(crawl.subject,))
    required = {RecordKind.RUN: ("code",), RecordKind.MODEL_VERSION: ("evaluation",)}
    # Partition 0 is read first in small batches: what it records later in the log's order
    # must not count for what partitions 1 and 2 hold before it.
    story = [
        (2, early),  # before the policy: applied
        (0, policy_of(P, required, gates=True)),
        (2, too_soon),  # before its data's gates were recorded: refused
        (1, approved(P)),  # before any evaluation: refused
        (0, crawl),
        (0, evaluated(P)),
        (2, trains),  # applied
        (2, bare),  # refused
        (1, approved(P)),  # applied
    ]
    graph, reasons = project(story, max_records, gap_ms=2000)  # requests seconds apart
    assert reasons == ["record_incomplete"] * 3
    assert early.subject in graph.nodes and trains.subject in graph.nodes
    assert bare.subject not in graph.nodes and too_soon.subject not in graph.nodes
    assert graph.nodes[model_version(P)][1]["status"] == "approved"
    # sent in one request (appended within a millisecond each), in any partition order: kept
    assert project(story, max_records)[1] == ["record_incomplete"]  # only the bare run
