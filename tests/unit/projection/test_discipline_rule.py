"""The records-discipline rules on plain events (`projection.discipline`): a recorded
environment is read-only, and a project may require a conclusion on run.completed."""

from __future__ import annotations

from typing import Any

import pytest
from support.record_policy import logged

from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.discipline import (
    ConclusionRequired,
    EnvironmentChanged,
    RecordFacts,
    judge,
    lookups,
)
from provgraph.ingest.screening import disciplined
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    EnvironmentSnapshotRecorded,
    Event,
    ProjectPolicySet,
    RunCompleted,
    environment_id,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.run import RunCompletedPayload

pytestmark = pytest.mark.unit

P = "team"
BASE = {
    "python_version": "3.11.8",
    "frameworks": {"torch": "2.3.0"},
    "packages": {"numpy": "1.26.4"},
}
ENV = environment_id(P, "trainer-2024-05")


def _make(model: type[Event], payload: Any, project: str = P) -> Event:
    return model.create(
        project=project, producer="https://example.com/t", actor="u:a", payload=payload
    )


def env(key: str = "trainer-2024-05", **changes: Any) -> Event:
    fields = {**BASE, "key": key, **changes}
    return _make(EnvironmentSnapshotRecorded, EnvironmentSnapshotRecordedPayload(**fields))


def policy(required: bool, project: str = P) -> Event:
    return _make(ProjectPolicySet, policy_payload(require_conclusion=required), project)


def completed(run: str, conclusion: str | None = None, project: str = P) -> Event:
    payload = RunCompletedPayload(run_id=run, conclusion=conclusion)
    return _make(RunCompleted, payload, project)


def verdicts(
    events: list[Event], facts: RecordFacts | None = None, order: list[int] | None = None
) -> list[str | None]:
    """The reason of each event's refusal (None: kept), the events logged in the order given
    and judged in `order` (by default the same)."""
    changes = logged(events)
    order = order or list(range(len(events)))
    found = dict(
        zip(order, judge([changes[i] for i in order], facts or RecordFacts()), strict=True)
    )
    return [None if found[i] is None else str(found[i].reason) for i in range(len(events))]  # type: ignore[union-attr]


def test_the_same_contents_again_are_kept_a_change_is_refused_naming_the_fields() -> None:
    first = env()
    again = env()  # another event_id, the same contents (a second run on the same image)
    changed = env(packages={"numpy": "2.0.0"}, driver_version="550.54.15")
    found = judge([project_event(e) for e in (first, first, again, changed)], RecordFacts())
    assert found[:3] == [None, None, None]
    refusal = found[3]
    assert isinstance(refusal, EnvironmentChanged)
    assert refusal.reason == "environment_changed"
    assert refusal.environment == ENV
    assert refusal.fields == ("driver_version", "packages")  # from the story: two fields
    assert f"based_on: {ENV}" in str(refusal)


def test_a_changed_environment_under_a_new_key_based_on_the_old_is_kept() -> None:
    successor = env("trainer-2024-06", packages={"numpy": "2.0.0"}, based_on=ENV)
    assert verdicts([env(), successor]) == [None, None]


def test_a_field_left_out_is_a_change_too() -> None:
    assert verdicts([env(), env(frameworks={})]) == [None, "environment_changed"]


def test_stored_contents_are_compared_with_what_the_fold_stored() -> None:
    graph = MemoryGraph()
    graph.write([project_event(env())])
    facts = graph.discipline_facts([ENV], [])
    assert verdicts([env()], facts) == [None]
    assert verdicts([env(python_version="3.12.1")], facts) == ["environment_changed"]


def test_no_policy_or_a_policy_off_accepts_a_run_without_conclusion() -> None:
    assert verdicts([completed("r1"), policy(False), completed("r2")]) == [None, None, None]


def test_the_policy_in_force_is_the_last_one_before_the_run_completed() -> None:
    story = [
        completed("r1"),  # before any policy: kept
        policy(True),
        completed("r2"),  # refused
        completed("r3", "lr 3e-4 converges"),  # a conclusion: kept
        policy(False),
        completed("r4"),  # the policy was lifted: kept
    ]
    assert verdicts(story) == [None, None, "conclusion_required", None, None, None]
    # The log's order decides, not the order a projector reads the partitions in: here every
    # policy is read first, then every run.completed.
    expected = [None, None, "conclusion_required", None, None, None]
    assert verdicts(story, order=[1, 4, 0, 2, 3, 5]) == expected


def test_at_ingest_the_request_order_decides_after_the_stored_policy() -> None:
    graph = MemoryGraph()
    graph.write(logged([policy(True)]))
    facts = graph.discipline_facts([], [P])
    changes = [project_event(e) for e in (completed("r1"), policy(False), completed("r2"))]
    found = judge(changes, facts, by_log=False)
    assert [None if v is None else v.reason for v in found] == ["conclusion_required", None, None]


def test_the_policy_is_per_project() -> None:
    story = [policy(True, "other"), completed("r1"), completed("r2", project="other")]
    found = judge(logged(story), RecordFacts())
    assert found[1] is None
    refusal = found[2]
    assert isinstance(refusal, ConclusionRequired)
    assert (refusal.run, refusal.project) == ("run:r2", "other")


def test_the_stored_policy_counts_and_lookups_name_what_to_read() -> None:
    graph = MemoryGraph()
    story = [policy(True), env(), completed("r1"), completed("r2", project="other")]
    graph.write(logged(story)[:1])
    changes = logged(story)[1:]
    story = story[1:]
    assert lookups(changes) == ([ENV], ["other", P], [], [])
    facts = graph.discipline_facts(*lookups(changes))
    assert list(facts.policies) == [P]
    assert [p.requires_conclusion for p in facts.policies[P].values()] == [True]
    found = judge(changes, graph.discipline_facts(*lookups(changes)))
    assert [None if v is None else v.reason for v in found] == [None, "conclusion_required", None]
    assert disciplined(graph, changes) == [changes[0], changes[2]]
