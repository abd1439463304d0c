"""One request appended in steps where a verdict at ingest read what an earlier event of the
request recorded on another subject (`discipline.append_steps`), so that the log's order,
which the projector, `replay` and `verify` judge by, agrees with the request's there."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.memory_stores import MemoryPayloadHashes, MemoryPrincipals, memory_graph_reads
from support.numbering_story import Numbering
from support.record_policy import approved, evaluated, policy, started, version

from provgraph.authz import Principal, hash_token
from provgraph.client.eventlog import Appended, Headers, MemoryEventLog
from provgraph.ingest.app import create_app
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.discipline import append_steps, judge
from provgraph.ingest.screening import discipline_facts
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event
from provgraph.schemas.records import RecordKind

pytestmark = pytest.mark.unit

P = "steps"
GATED = policy(P, {RecordKind.RUN: ("code",)}, gates=True)


def steps(events: Sequence[Event], stored: Sequence[Event] = ()) -> list[int]:
    """The steps of a request of `events`, judged at ingest against a graph of `stored`."""
    graph = MemoryGraph()
    graph.write([project_event(e) for e in stored])
    changes = [project_event(e) for e in events]
    facts = discipline_facts(graph, changes)
    assert judge(changes, facts, by_log=False) == [None] * len(changes)
    return append_steps(changes, facts)


def test_a_project_without_a_policy_is_appended_in_one_step() -> None:
    clean = version(P, "clean", checks={"dedup": True})
    request = [clean, started(P, train=(clean.subject,)), evaluated(P), approved(P)]
    assert steps(request) == [0]


def test_what_a_verdict_read_of_an_earlier_event_starts_a_step() -> None:
    clean = version(P, "clean", checks={"dedup": True})
    dirty = version(P, "dirty", checks={"dedup": True})
    trains = started(P, train=(clean.subject,))
    request = [clean, dirty, trains, evaluated(P), approved(P)]
    # trains read clean's gates; the approval read the evaluation: two more steps
    assert steps(request, stored=[GATED]) == [0, 2, 4]
    # without the evaluation in the request, the approval reads nothing of it
    assert steps([clean, trains], stored=[GATED]) == [0, 1]
    assert steps([dirty, clean], stored=[GATED]) == [0]  # two versions read nothing of each other


def test_a_policy_in_the_request_parts_it_before_and_after() -> None:
    run = started(P)
    assert steps([GATED, run]) == [0, 1]  # the run is judged by the policy
    assert steps([run, GATED], stored=[GATED]) == [0, 1]  # the run was judged by the old one
    assert steps([GATED]) == [0]


def test_events_of_one_subject_share_a_step_whatever_they_read() -> None:
    run_id = "0b0a4a1e-8f4c-4d55-9a57-4d7c1d36f0aa"
    first, again = started(P, run=run_id), started(P, run=run_id)
    assert steps([first, again], stored=[GATED]) == [0]


class CountingLog(MemoryEventLog):
    """The in-memory log, noting each append call's event types."""

    def __init__(self) -> None:
        super().__init__(partitions=3)
        self.calls: list[list[str]] = []

    def append(
        self, events: Sequence[Event], headers: Sequence[Headers] | None = None
    ) -> list[Appended]:
        self.calls.append([e.event_type for e in events])
        return super().append(events, headers)


def test_ingest_appends_each_step_after_the_one_before_and_answers_in_request_order() -> None:
    token = "pgt_unit-steps"
    principals = MemoryPrincipals(
        {hash_token(token): Principal("service:t", roles={P: frozenset({"writer", "admin"})})}
    )
    graph, log = MemoryGraph(), CountingLog()
    graph.write([project_event(GATED)])
    app = create_app(
        IngestSettings(),
        event_log=log,
        principals=principals,
        **memory_graph_reads(graph),
        payload_hashes=MemoryPayloadHashes(),
    )
    clean = version(P, "clean", checks={"dedup": True})
    request = [clean, started(P, train=(clean.subject,)), evaluated(P), approved(P)]
    body: list[Any] = [json.loads(e.model_dump_json()) for e in request]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as client:
        answer = client.post("/v1/events", content=json.dumps(body).encode())
    assert answer.status_code == 202, answer.text
    assert log.calls == [
        ["dataset.version.created"],
        ["run.started", "model.version.evaluated"],
        ["model.version.status.changed"],
    ]
    ids = [e["event_id"] for e in answer.json()["events"]]
    assert ids == [str(e.event_id) for e in request]


def test_numbers_that_depend_on_each_other_part_the_request_whatever_the_policy() -> None:
    s = Numbering(P)
    a, b = s.created("a"), s.created("b")
    # every number left to assign depends on those given before it in its scope
    assert steps([a, s.started("r1", "a"), s.started("r2", "a")]) == [0, 2]
    assert steps([a, b]) == [0, 1]  # two experiments of one project, both unnumbered
    # distinct claims depend on nothing of each other; other scopes neither
    assert steps([s.started("r1", "a", number=1), s.started("r2", "a", number=2)]) == [0]
    assert steps([s.started("r1", "a"), s.started("q1", "b"), s.started("x")]) == [0]
    # the same claim twice, or a claim after an assignment, depends on which comes first
    assert steps([s.started("r1", "a", number=1), s.started("r2", "a", number=1)]) == [0, 1]
    assert steps([s.started("r1", "a"), s.started("r2", "a", number=1)]) == [0, 1]
    # a run started again is one subject: one step
    assert steps([s.started("r1", "a"), s.started("r1", "a")]) == [0]
    # a resumed run continues a number given earlier in the request
    assert steps([s.started("r1", "a", number=3), s.started("r1b", "a", resumes="r1")]) == [0, 1]
