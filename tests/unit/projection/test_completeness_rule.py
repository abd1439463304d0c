"""Complete records on plain events (`projection.completeness`, judged by
`projection.discipline.judge`): every element of each kind a policy can require, passed gates
before training, and which policy is in force by the log's order."""

from __future__ import annotations

import json

import pytest
from support.record_policy import (
    EVERY_ELEMENT,
    RUN_ELEMENTS,
    approved,
    evaluated,
    logged,
    model_version,
    policy,
    started,
    version,
)

from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projection.completeness import RecordIncomplete
from provgraph.ingest.projection.discipline import RecordFacts, judge, lookups
from provgraph.ingest.screening import disciplined
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    MAX_BATCH_EVENTS,
    ContractError,
    Event,
    dataset_version_id,
    parse_event,
)
from provgraph.schemas.records import REQUIRE_PASSED_GATES, REQUIRED_ELEMENTS, RecordKind

pytestmark = pytest.mark.unit

P = "vision"
RUN, DATA, MODEL = RecordKind.RUN, RecordKind.DATASET_VERSION, RecordKind.MODEL_VERSION
CRAWL = dataset_version_id(P, "crawl", "v1")


def refusals(
    events: list[Event], facts: RecordFacts | None = None, *, by_log: bool = True
) -> list[RecordIncomplete | None]:
    found = judge(logged(events), facts or RecordFacts(), by_log=by_log)
    assert all(v is None or isinstance(v, RecordIncomplete) for v in found)
    return found  # type: ignore[return-value]


def missing(
    events: list[Event], facts: RecordFacts | None = None, *, by_log: bool = True
) -> list[tuple[str, ...] | None]:
    return [None if v is None else v.missing for v in refusals(events, facts, by_log=by_log)]


@pytest.mark.parametrize("element", RUN_ELEMENTS)
def test_a_run_without_a_required_element_is_refused_naming_it(element: str) -> None:
    rule = policy(P, {RUN: RUN_ELEMENTS})
    run = started(P, without=(element,))
    found = refusals([rule, started(P), run])
    assert found[:2] == [None, None]
    refusal = found[2]
    assert refusal is not None
    assert (refusal.reason, refusal.record, refusal.kind, refusal.project) == (
        "record_incomplete",
        run.subject,
        RUN,
        P,
    )
    assert refusal.missing == (element,)
    assert run.subject in str(refusal) and repr(P) in str(refusal) and element in str(refusal)


def test_every_missing_element_is_named_and_only_required_ones_count() -> None:
    rule = policy(P, {RUN: ("code", "environment", "experiment")})
    bare = started(P, without=RUN_ELEMENTS)
    no_number = started(P, without=("run_number", "inputs"))  # neither is required
    assert missing([rule, bare, no_number]) == [None, ("code", "environment", "experiment"), None]
    message = str(refusals([rule, bare])[1])
    assert "lacks code, environment, experiment;" in message
    assert "required.run" in message


@pytest.mark.parametrize(
    ("without", "expected"),
    [((), None), (("licence",), ("licence",)), (("source",), ("licence", "source"))],
)
def test_a_dataset_version_needs_its_source_and_licence(
    without: tuple[str, ...], expected: tuple[str, ...] | None
) -> None:
    rule = policy(P, {DATA: ("licence", "source")})
    found = refusals([rule, version(P, "crawl", without=without)])
    assert [None if v is None else v.missing for v in found] == [None, expected]
    if found[1] is not None:
        assert (found[1].record, found[1].kind) == (CRAWL, DATA)
        assert "dataset.version.created" in str(found[1])


def test_approval_needs_an_evaluation_recorded_before_it() -> None:
    rule = policy(P, {MODEL: ("evaluation",)})
    assert missing([rule, approved(P)]) == [None, ("evaluation",)]
    assert missing([rule, evaluated(P), approved(P)]) == [None, None, None]
    assert missing([rule, approved(P), evaluated(P)]) == [None, ("evaluation",), None]
    stored = RecordFacts(evaluated={model_version(P)})
    assert missing([rule, approved(P)], facts=stored) == [None, None]
    other = evaluated(P, "other-lm")  # an evaluation of another version does not count
    assert missing([rule, other, approved(P)]) == [None, None, ("evaluation",)]
    refusal = refusals([rule, approved(P)])[1]
    assert refusal is not None and refusal.record == model_version(P)
    assert "model.version.evaluated" in str(refusal)


def test_without_a_policy_nothing_is_required() -> None:
    story = [started(P, without=RUN_ELEMENTS), version(P, "crawl", without=("source",))]
    assert missing([*story, approved(P)]) == [None, None, None]
    assert missing([policy(P), *story, approved(P)]) == [None, None, None, None]


def test_passed_gates_before_training() -> None:
    rule = policy(P, gates=True)
    clean = version(P, "clean", checks={"dedup": True, "pii": True})
    dirty = version(P, "dirty", checks={"dedup": True, "pii": False, "toxicity": False})
    ungated = version(P, "ungated")
    ids = [e.subject for e in (clean, dirty, ungated)]
    found = refusals(
        [rule, clean, dirty, ungated, started(P, train=(ids[0],)), started(P, train=tuple(ids))]
    )
    assert found[:5] == [None] * 5  # gates that failed are recorded all the same
    refusal = found[5]
    assert refusal is not None and refusal.missing == ("passed_gates",)
    assert [(g.dataset_version, g.failed) for g in refusal.gates] == [
        (ids[1], ("pii", "toxicity")),
        (ids[2], ()),
    ]
    assert f"{ids[1]} (quality check 'pii', 'toxicity' failed)" in str(refusal)
    assert f"{ids[2]} (no quality check recorded)" in str(refusal)
    # an input of another role is not trained on; a version never created has no gates
    assert missing([rule, started(P)]) == [None, None]
    assert missing([rule, started(P, train=(CRAWL,))]) == [None, ("passed_gates",)]
    assert missing([rule, started(P, train=(CRAWL,))], facts=RecordFacts(gates={CRAWL: ()})) == [
        None,
        None,
    ]


def test_missing_elements_and_failed_gates_are_named_together() -> None:
    rule = policy(P, {RUN: ("code",)}, gates=True)
    run = started(P, without=("code",), train=(CRAWL,))
    refusal = refusals([rule, run])[1]
    assert refusal is not None and refusal.missing == ("code", "passed_gates")
    assert "lacks code and trains on" in str(refusal)
    assert "required.run and require_passed_gates" in str(refusal)


def test_a_refused_dataset_version_does_not_count_as_gated() -> None:
    rule = policy(P, {DATA: ("source",)}, gates=True)
    unsourced = version(P, "crawl", without=("source",), checks={"dedup": True})
    found = missing([rule, unsourced, started(P, train=(CRAWL,))])
    assert found == [None, ("source",), ("passed_gates",)]


def test_the_policy_in_force_is_the_last_before_the_event_in_the_log() -> None:
    rule = policy(P, {RUN: ("code",)})
    run = started(P, without=("code",))
    assert missing([run, rule]) == [None, None]  # set after the event: it does not refuse it
    assert missing([rule, run]) == [None, ("code",)]
    # read in another order (partitions), the log's order still decides
    changes = logged([run, rule])
    assert [v is None for v in judge(changes[::-1], RecordFacts())] == [True, True]
    lifted = policy(P)
    assert missing([rule, lifted, run]) == [None, None, None]


def test_at_ingest_the_latest_stored_policy_then_the_request_order() -> None:
    graph = MemoryGraph()
    graph.write(logged([policy(P, {RUN: ("code",)})]))
    run = started(P, without=("code",))
    stored = graph.discipline_facts(*lookups(logged([run])))
    assert missing([run], facts=stored, by_log=False) == [("code",)]
    stored = graph.discipline_facts(*lookups(logged([run])))
    assert missing([policy(P), run], facts=stored, by_log=False) == [None, None]


def test_v1_means_a_required_conclusion_and_the_project_keeps_the_policy() -> None:
    v1 = {
        "event_id": "5f1c2d3e-0000-4000-8000-000000000099",
        "event_type": "project.policy.set",
        "schema_version": 1,
        "occurred_at": "2026-01-01T00:00:00Z",
        "project": P,
        "producer": "https://e.com/t/1",
        "actor": "ci:t",
        "subject": f"project:{P}",
        "payload": {"require_conclusion": True},
    }
    event = parse_event(v1)
    assert event.schema_version == 3  # upcast v1 -> v2 -> v3
    assert event.payload.required.run == ("conclusion",)  # type: ignore[attr-defined]
    graph = MemoryGraph()
    graph.write(
        logged([event, policy(P, {DATA: ("source",), RUN: ("inputs", "code")}, gates=True)])
    )
    props = graph.nodes[f"project:{P}"][1]
    assert json.loads(props[REQUIRED_ELEMENTS]) == {
        "dataset_version": ["source"],
        "run": ["code", "inputs"],
    }
    assert props[REQUIRE_PASSED_GATES] is True and props["require_conclusion"] is False
    history = graph.discipline_facts([], [P]).policies[P]
    assert [p.requires_conclusion for _, p in sorted(history.items())] == [True, False]


def test_an_unknown_element_or_kind_is_refused_at_validation() -> None:
    base = policy(P).model_dump(mode="json")
    for required, named in (({"run": ["code", "commit"]}, "'commit'"), ({"job": ["x"]}, "job")):
        base["payload"]["required"] = required
        with pytest.raises(ContractError) as refused:
            parse_event(base)
        assert named in str(refused.value)
    assert "known: code, conclusion" in _reason({"run": ["commit"]})


def _reason(required: dict[str, list[str]]) -> str:
    event = policy(P).model_dump(mode="json")
    event["payload"]["required"] = required
    with pytest.raises(ContractError) as refused:
        parse_event(event)
    return str(refused.value)


def test_a_batch_several_times_the_ingest_limit_refuses_exactly_the_incomplete() -> None:
    rule = policy(P, EVERY_ELEMENT, gates=True)
    gated = version(P, "crawl", checks={"dedup": True})
    story: list[Event] = [rule, gated]
    expected: list[bool] = [False, False]
    for n in range(3 * MAX_BATCH_EVENTS):
        complete = n % 7 != 0
        story.append(started(P, train=(CRAWL,), without=() if complete else ("environment",)))
        expected.append(not complete)
    found = refusals(story)
    assert [v is not None for v in found] == expected
    graph = MemoryGraph()
    graph.write(logged(story[:2]))
    kept = disciplined(graph, logged(story))
    assert len(kept) == expected.count(False)


def test_records_appended_with_the_event_count_whatever_the_partition_order() -> None:
    rule = logged([policy(P, {MODEL: ("evaluation",)}, gates=True)])
    at = LogStamp("2026-01-01T00:00:05.000000Z")  # one request: one append time
    approval, evaluation = project_event(approved(P), at), project_event(evaluated(P), at)
    run = project_event(started(P, train=(CRAWL,)), at)
    gated = project_event(version(P, "crawl", checks={"dedup": True}), at)
    assert judge([*rule, approval, run, evaluation, gated], RecordFacts()) == [None] * 5
    # appended a little after (another partition of the same request) counts; a second not
    soon, late = LogStamp("2026-01-01T00:00:05.900000Z"), LogStamp("2026-01-01T00:00:06.000000Z")
    for stamp, refused in ((soon, False), (late, True)):
        found = judge([*rule, approval, project_event(evaluated(P), stamp)], RecordFacts())
        assert (found[1] is not None) is refused
    # at ingest, in request order: what comes later in the request does not count yet
    found = judge([*rule, approval, evaluation], RecordFacts(), by_log=False)
    assert [v is None for v in found] == [True, False, True]
