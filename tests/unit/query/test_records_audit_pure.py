"""audit-records and the data gates on plain data; every expected value is worked out by hand
from the records written here."""

from __future__ import annotations

from typing import Any

import pytest
from contracts.records_reads import ANN, BOB, SWEEP, RecordsGraph
from fakes import FakeRecordsReads

from provgraph.core.errors import NotFoundError
from provgraph.query.read.model import Scope
from provgraph.query.read.records_reads import ProjectPolicy, RecordFacts
from provgraph.query.recipes.compare_answer import compare_runs
from provgraph.query.recipes.compare_table import render_comparison
from provgraph.query.recipes.data_gates import gates_issue, trained_on
from provgraph.query.recipes.digest import digest
from provgraph.query.recipes.digest_render import render_digest
from provgraph.query.recipes.records_audit import audit, audit_records, render_audit
from provgraph.schemas.records import BASELINE, RecordKind
from provgraph.schemas.storage import encode_json

EVERYTHING = Scope.everything()


def fact(key: str, present: set[str], who: str | None, *, placeholder: bool = False) -> RecordFacts:
    return RecordFacts(f"run:{key}", "2026-03-01T00:00:00.000000Z", placeholder,
                       frozenset(present), who, None)  # fmt: skip


def test_gates_none_recorded_failed_or_passed() -> None:
    assert gates_issue(None) == "no quality gates recorded"
    assert gates_issue({"dedup_rate": 0.1}) is None  # recorded, no check failed
    checks = [{"name": "dedup", "passed": True}, {"name": "toxicity", "passed": False},
              {"name": "pii", "passed": False, "value": 3}]  # fmt: skip
    assert gates_issue({"checks": checks}) == "quality gates failed: toxicity, pii"
    inputs = [
        {"role": "validation", "id": "dataset:p/held@v1", "gates": None},  # not trained on
        {"role": "train", "id": "dataset:p/web@v2", "gates": encode_json({"checks": checks})},
        {"role": "train", "id": "dataset:p/clean@v1", "gates": encode_json({"checks": checks[:1]})},
        {"role": "train", "id": "dataset:p/forum@v1", "gates": None},
    ]
    assert trained_on(inputs) == [
        {"dataset_version": "dataset:p/forum@v1", "issue": "no quality gates recorded"},
        {"dataset_version": "dataset:p/web@v2", "issue": "quality gates failed: toxicity, pii"},
    ]


def test_without_a_policy_the_baseline_is_required() -> None:
    runs = [
        fact("a", {"experiment", "code", "inputs"}, "user:ann"),  # the baseline, nothing more
        fact("b", {"experiment", "inputs"}, "user:ann"),
        fact("c", set(), "bob"),
        fact("ghost", set(), None, placeholder=True),
    ]
    answer = audit("p", None, {RecordKind.RUN: runs})
    assert answer["required_by"] == "baseline"
    run = answer["kinds"][0]
    assert run["required"] == list(BASELINE[RecordKind.RUN])
    assert (run["total"], run["complete"], run["incomplete"]) == (4, 1, 3)
    missing = {m["element"]: (m["required"], m["count"], m["by"]) for m in run["missing"]}
    assert missing["never recorded"] == (True, 1, [{"person": "unknown", "count": 1}])
    assert missing["code"] == (True, 2, [{"person": "bob", "count": 1},
                                         {"person": "user:ann", "count": 1}])  # fmt: skip
    assert missing["environment"] == (False, 3, [{"person": "bob", "count": 1},
                                                 {"person": "user:ann", "count": 2}])  # fmt: skip
    assert answer["failed"] == [
        {"kind": "run", "element": "never recorded", "count": 1},
        {"kind": "run", "element": "experiment", "count": 1},
        {"kind": "run", "element": "code", "count": 2},
        {"kind": "run", "element": "inputs", "count": 1},
    ]
    text = render_audit(answer)
    assert "required by the baseline (no policy set)" in text
    assert "run: 4 records, 1 complete, 3 incomplete (required: experiment, code, inputs)" in text
    assert "  missing code (required): 2, by bob 1, user:ann 1" in text
    assert text.endswith(
        "check: FAILED, required elements missing: 1 run never recorded; 1 run experiment; "
        "2 run code; 1 run inputs"
    )


def test_a_policy_replaces_the_baseline_and_a_complete_project_passes() -> None:
    policy = ProjectPolicy({RecordKind.RUN: ("conclusion",)}, True, "2026-03-01T00:00:00.000000Z")
    answer = audit("p", policy, {RecordKind.RUN: [fact("a", {"conclusion"}, "user:ann")]})
    assert (answer["required_by"], answer["require_passed_gates"]) == ("policy", True)
    run, dataset, model = answer["kinds"]
    assert (run["complete"], run["incomplete"], dataset["required"]) == (1, 0, [])
    assert [m["required"] for m in run["missing"]] == [False] * 5  # all but the conclusion
    assert answer["failed"] == [] and model["total"] == 0
    assert render_audit(answer).endswith("check: passed, every record holds what is required")


def test_a_policy_that_requires_no_element_keeps_the_baseline() -> None:
    conventions_only = ProjectPolicy({}, False, "2026-03-01T00:00:00.000000Z")
    answer = audit("p", conventions_only, {RecordKind.RUN: [fact("a", {"code"}, "user:ann")]})
    assert answer["required_by"] == "baseline"
    assert answer["kinds"][0]["required"] == ["experiment", "code", "inputs"]
    text = render_audit(answer)
    assert "required by the baseline (the project's policy requires no element)" in text


@pytest.mark.parametrize("page", [1, 3, 100])
def test_the_audit_pages_through_every_record(page: int) -> None:
    graph = RecordsGraph("a", "b")
    reads = FakeRecordsReads(graph.log.memory())
    answer = audit_records(reads, "a", EVERYTHING, page=page)
    run, dataset, model = answer["kinds"]
    assert answer["required_by"] == "policy"
    # full is complete; bare lacks code and experiment, live code and inputs, every sweep run
    # its inputs (the policy: code, experiment, inputs).
    assert (run["total"], run["complete"], run["incomplete"]) == (SWEEP + 3, 1, SWEEP + 2)
    missing = {m["element"]: (m["count"], m["by"]) for m in run["missing"]}
    assert missing["inputs"] == (SWEEP + 1, [{"person": BOB[0], "count": 1},
                                             {"person": ANN[1], "count": SWEEP}])  # fmt: skip
    # web has both, forum no licence, raw neither, ghost was never recorded
    assert (dataset["total"], dataset["complete"], dataset["incomplete"]) == (4, 1, 3)
    assert {m["element"]: m["count"] for m in dataset["missing"]} == {
        "never recorded": 1, "source": 1, "licence": 2,
    }  # fmt: skip
    assert (model["total"], model["complete"], model["incomplete"]) == (4, 4, 0)
    assert [m["count"] for m in model["missing"]] == [2]  # m@2 and m@3: not required
    asked = [p for p in reads.pages if p.kind == RecordKind.RUN]
    assert len(asked) == -(-(SWEEP + 3) // page) and all(p.first == page for p in asked)
    assert audit_records(reads, "b", EVERYTHING)["required_by"] == "baseline"
    with pytest.raises(NotFoundError):
        audit_records(reads, "nowhere", EVERYTHING)
    since = audit_records(reads, "a", EVERYTHING, since="2999-01-01T00:00:00.000000Z")
    assert [k["total"] for k in since["kinds"]] == [0, 0, 0]  # a project all the same


def _compared(key: str, number: int, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"run": {"id": f"run:{key}", "run_number": number, "status": "completed"},
            "experiment": "experiment:p/x", "inputs": inputs, "environments": [],
            "bases": [], "resumes": []}  # fmt: skip


def test_compare_flags_each_run_that_trains_on_ungated_data() -> None:
    failed = encode_json({"checks": [{"name": "toxicity", "passed": False}]})
    held = {"role": "validation", "id": "dataset:p/held@v1", "gates": None}  # not trained on
    records = [
        _compared("one", 1, [{"role": "train", "id": "dataset:p/web@v1",
                              "gates": encode_json({"checks": []})}, held]),
        _compared("two", 2, [{"role": "train", "id": "dataset:p/web@v2", "gates": failed},
                             held]),
    ]  # fmt: skip
    answer = compare_runs(records, experiment="experiment:p/x")
    by_id = {r["id"]: r["data_gates"] for r in answer["runs"]}
    assert by_id == {
        "run:one": [],
        "run:two": [{"dataset_version": "dataset:p/web@v2",
                     "issue": "quality gates failed: toxicity"}],
    }  # fmt: skip
    assert answer["gates_flagged"] == ["run:two"] and answer["flagged"] == []
    assert render_comparison(answer).endswith(
        "Data gates before training:\n  #2 trains on web@v2: quality gates failed: toxicity"
    )


def test_the_digest_lists_runs_trained_on_ungated_data() -> None:
    start = "2026-03-02T10:00:00.000000Z"
    base = {"project": "p", "status": "running", "started_at": start,
            "lifecycle": [{"type": "run.started", "at": start, "actor": "bob",
                           "principal": None}]}  # fmt: skip
    runs = [
        {**base, "id": "run:clean", "name": "clean", "trained_on": []},
        {**base, "id": "run:dirty", "name": "dirty",
         "trained_on": [{"role": "train", "id": "dataset:p/raw@v1", "gates": None}]},
    ]  # fmt: skip
    report = digest(runs, [], projects=["p"], since="2026-03-01T00:00:00.000000Z",
                    until="2026-03-08T00:00:00.000000Z")  # fmt: skip
    [flagged] = report["trained_on_ungated_data"]
    assert (flagged["id"], flagged["person"]) == ("run:dirty", "bob")
    assert flagged["data_gates"] == [
        {"dataset_version": "dataset:p/raw@v1", "issue": "no quality gates recorded"}
    ]
    text = render_digest(report)
    assert (
        "Trained on data whose gates failed or were never recorded:\n"
        "  dirty (run:dirty) by bob: dataset:p/raw@v1 (no quality gates recorded)\n"
    ) in text
    clean = digest(runs[:1], [], projects=["p"], since="2026-03-01T00:00:00.000000Z",
                   until="2026-03-08T00:00:00.000000Z")  # fmt: skip
    assert "Trained on data" not in render_digest(clean)
