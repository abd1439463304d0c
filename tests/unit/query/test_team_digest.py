"""The digest on plain data; every expected value is worked out by hand from the story.

The records are what the reads hand over: a stamped principal named as issued (`user:alice`;
the graph stores `principal:user:alice`, test_team_graphql_fake.py starts from that)."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.digest import conclusion_missing, digest
from provgraph.query.recipes.digest_render import render_digest
from provgraph.query.recipes.team_service import parse_duration, parse_instant

SINCE, UNTIL = "2026-03-01T12:00:00.000000Z", "2026-03-08T12:00:00.000000Z"
ALICE = {"actor": "alice", "principal": "user:alice"}  # the principal wins over the claim
BOB = {"actor": "user:bob", "principal": None}  # no principal: the actor


def at(day: int, hhmm: str) -> str:
    return f"2026-03-{day:02d}T{hhmm}:00.000000Z"


def run(key: str, who: dict[str, Any], exp: str, start: str, **props: Any) -> dict[str, Any]:
    end = props.pop("end", None)
    life = [{"type": "run.started", "at": start, **who}]
    if end is not None:
        life.append({"type": f"run.{props['status']}", "at": end, **who})
    return {
        "id": f"run:{key}",
        "project": "p",
        "name": key,
        "experiment": {"id": f"experiment:p/{exp}", "key": exp},
        "started_at": start,
        "ended_at": end,
        "lifecycle": life,
        **props,
    }


RUNS = [
    run("r1", ALICE, "a", at(2, "10:00"), status="completed", end=at(2, "14:00"),
        conclusion="lr 3e-4 is better", resources={"num_nodes": 1, "devices_per_node": 8},
        last_event_at=at(2, "14:00")),
    run("r2", BOB, "a", at(3, "09:00"), status="failed", end=at(3, "10:00"),
        conclusion="Run failed: OOM: cuda", error_type="OOM", error_message="cuda",
        resources={"num_nodes": 2, "devices_per_node": 4}, last_event_at=at(3, "10:00")),
    run("r3", BOB, "a", at(4, "09:00"), status="failed", end=at(4, "09:30"),
        conclusion="batch too big", error_type="OOM", error_message="cuda",
        last_event_at=at(4, "09:30")),
    run("r4", ALICE, "b", at(7, "08:00"), status="running",
        resources={"devices_per_node": 8}, last_event_at=at(8, "08:00")),
    run("r5", ALICE, "b", at(8, "11:00"), status="running", last_event_at=at(8, "11:50")),
    run("r6", BOB, "b", "2026-02-20T00:00:00.000000Z", status="completed", end=at(1, "13:00"),
        conclusion=None, resources={"devices_per_node": 2}, last_event_at=at(1, "13:00")),
]  # fmt: skip
ITEMS: list[dict[str, Any]] = [
    {"event_type": "dataset.version.created", "at": at(2, "08:00"), **ALICE,
     "node": {"id": "dataset:p/web@v2", "name": "web", "version": "v2"}, "status_at": {}},
    {"event_type": "model.version.status.changed", "at": at(5, "10:00"), **BOB,
     "node": {"id": "model:p/m@1", "name": "m", "version": "1", "status": "approved"},
     "status_at": {"approved": at(5, "10:00"), "candidate": at(4, "10:00")}},
    {"event_type": "deployment.feedback.recorded", "at": at(6, "10:00"), **BOB,
     "node": {"id": "deployment:p/api", "name": "api", "feedback_model_version": "model:p/m@1"},
     "status_at": {}},
]  # fmt: skip


def ids(briefs: list[dict[str, Any]]) -> list[str]:
    return [b["id"] for b in briefs]


@pytest.fixture()
def report() -> dict[str, Any]:
    return digest(RUNS, ITEMS, projects=["p"], since=SINCE, until=UNTIL, stalled_after_s=7200)


def test_runs_by_person_principal_first(report: dict[str, Any]) -> None:
    alice, bob = report["people"]
    assert (alice["person"], alice["basis"], bob["person"], bob["basis"]) == (
        "user:alice", "principal", "user:bob", "actor",
    )  # fmt: skip
    assert ids(alice["started"]) == ["run:r1", "run:r4", "run:r5"]
    assert ids(alice["finished"]) == ["run:r1"] and ids(alice["running"]) == ["run:r4", "run:r5"]
    assert ids(bob["started"]) == ["run:r2", "run:r3"]  # r6 started before the window
    assert ids(bob["finished"]) == ["run:r6"] and ids(bob["failed"]) == ["run:r2", "run:r3"]
    assert bob["failed"][0]["error"] == {"type": "OOM", "message": "cuda"}


def test_stalled_repeated_and_missing_conclusions(report: dict[str, Any]) -> None:
    # r4: last event 4 h before the end of the window (> 2 h); r5: 10 min.
    [stalled] = report["stalled"]
    assert (stalled["id"], stalled["idle_s"]) == ("run:r4", 4 * 3600)
    assert report["repeated_failures"] == [
        {"experiment": "experiment:p/a", "failures": 2, "errors": ["OOM"],
         "runs": [report["people"][1]["failed"][0], report["people"][1]["failed"][1]]}
    ]  # fmt: skip
    # r2: the SDK's generated failure text; r6: none. r3 wrote one.
    assert ids(report["conclusion_missing"]) == ["run:r2", "run:r6"]


def test_accelerator_hours_within_the_window(report: dict[str, Any]) -> None:
    # alice: r1 4 h x 8 + r4 24 h (to its last event) x 8; bob: r2 1 h x 8 + r6 1 h x 2 (the
    # hour of it inside the window). r3 and r5 recorded no devices.
    assert report["accelerator_hours"] == {
        "by_person": [
            {"person": "user:alice", "accelerator_hours": 224.0},
            {"person": "user:bob", "accelerator_hours": 10.0},
        ],
        "by_project": [{"project": "p", "accelerator_hours": 234.0}],
        "runs_without_resources": 2,
    }


def test_items_and_markdown(report: dict[str, Any]) -> None:
    [dataset] = report["dataset_versions"]
    assert (dataset["id"], dataset["person"]) == ("dataset:p/web@v2", "user:alice")
    [change] = report["status_changes"]
    assert (change["to_status"], change["person"]) == ("approved", "user:bob")
    assert report["feedback"][0]["model_version"] == "model:p/m@1"
    assert report["model_versions"] == [] and report["deployments"] == []
    text = render_digest(report, markdown=True)
    assert text.startswith("## Digest of p, 2026-03-01 12:00 → 2026-03-08 12:00 UTC\n")
    assert "- user:bob failed: r2 (run:r2) — OOM: cuda" in text
    assert "### Stalled (no event for 2 h)\n- r4 (run:r4): no event for 4.0 h" in text
    assert "- experiment:p/a: 2 failures (OOM)" in text
    assert "- 2026-03-05 10:00 model:p/m@1 → approved changed by user:bob" in text
    assert "- user:alice: 224.0" in text
    assert "### Deployments\n- none" in text


def test_conclusion_placeholders() -> None:
    sdk_default = "Run completed; no conclusion was recorded (set run.conclusion)."
    assert conclusion_missing({"status": "completed", "conclusion": sdk_default})
    assert conclusion_missing({"status": "completed", "conclusion": "   "})
    assert not conclusion_missing({"status": "completed", "conclusion": "worse, revert"})


def test_durations_and_instants() -> None:
    assert [parse_duration(t, "--since") for t in ("30m", "2h", "7d", "1w", "90s", "1.5h")] == [
        1800, 7200, 604800, 604800, 90, 5400,
    ]  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="--since: 'a week' is not a duration"):
        parse_duration("a week", "--since")
    with pytest.raises(InvalidArgumentError):
        parse_duration("0h", "--since")
    assert parse_instant("2026-03-08T12:00:00", "until").tzinfo is not None
    with pytest.raises(InvalidArgumentError, match="not an ISO 8601 time"):
        parse_instant("yesterday", "until")
