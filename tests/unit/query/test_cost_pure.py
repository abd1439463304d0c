"""`cost` on plain runs (as the checkpoint advice's read answers them): hours, accelerators,
work lost, storage, roles and the failed attempts of a model version. Expected values are
written from the runs below, not computed by the code under test."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.recipes.cost import Costs, _attempts, gain, render_cost, run_cost, totals
from provgraph.query.recipes.team_service import MAX_CHECKPOINTS_PER_RUN

T = "2026-03-01T{:02d}:{:02d}:00.000000Z"


def _run(key: str, status: str, start: int, end: int, **extra: Any) -> dict[str, Any]:
    """A run from hour `start` to hour `end`, its end recorded as `status`."""
    lifecycle = [{"type": "run.started", "at": T.format(start, 0)}]
    if status != "running":
        lifecycle.append({"type": f"run.{status}", "at": T.format(end, 0)})
    return {
        "id": f"run:{key}",
        "name": key,
        "status": status,
        "started_at": T.format(start, 0),
        "ended_at": None if status == "running" else T.format(end, 0),
        "last_event_at": T.format(end, 0),
        "lifecycle": lifecycle,
        "checkpoints": [],
        "resources": None,
        **extra,
    }


EIGHT = {"num_nodes": 2, "devices_per_node": 4}


def test_a_failed_run_with_a_checkpoint() -> None:
    checkpoints = [
        {"id": "c1", "step": 1, "saved_at": T.format(1, 30), "size_bytes": 5_000_000},
        {"id": "c2", "step": 2, "saved_at": T.format(2, 30)},  # no size recorded
    ]
    run = _run("a", "failed", 1, 3, resources=EIGHT, checkpoints=checkpoints)
    cost = run_cost(run, "failed attempt")
    assert (cost["hours"], cost["accelerators"], cost["accelerator_hours"]) == (2.0, 8, 16.0)
    # lost: from the last checkpoint (02:30) to the failure (03:00)
    assert (cost["interruptions"], cost["lost_hours"], cost["lost_accelerator_hours"]) == (
        1,
        0.5,
        4.0,
    )
    assert (cost["checkpoint_bytes"], cost["checkpoints_without_size"]) == (5_000_000, 1)
    assert cost["checkpoints_capped"] is False and cost["role"] == "failed attempt"


def test_without_resources_hours_only_and_the_cap() -> None:
    saved = [{"id": f"c{i}", "step": i, "size_bytes": 1} for i in range(MAX_CHECKPOINTS_PER_RUN)]
    cost = run_cost(_run("b", "completed", 0, 4, checkpoints=saved), "completed")
    assert (cost["hours"], cost["accelerators"], cost["accelerator_hours"]) == (4.0, None, None)
    assert cost["lost_accelerator_hours"] is None and cost["checkpoints_capped"] is True


def test_totals_by_role() -> None:
    rows = [
        run_cost(_run("a", "completed", 0, 2, resources=EIGHT), "producing run"),
        run_cost(_run("b", "failed", 3, 4, resources=EIGHT), "failed attempt"),
        run_cost(_run("c", "aborted", 5, 6), "failed attempt"),
    ]
    t = totals(rows)
    assert (t["hours"], t["accelerator_hours"]) == (4.0, 24.0)
    assert t["by_role"] == {
        "producing run": {"runs": 1, "hours": 2.0, "accelerator_hours": 16.0},
        "failed attempt": {"runs": 2, "hours": 2.0, "accelerator_hours": 8.0},
    }
    assert (t["lost_hours"], t["lost_accelerator_hours"]) == (2.0, 8.0)  # b and c: all lost
    assert t["runs_without_resources"] == ["run:c"]


def test_failed_attempts_are_those_started_before_the_producing_run_ended() -> None:
    producing = _run("p", "completed", 4, 6)
    runs = [
        producing,
        _run("early", "failed", 1, 2),
        _run("during", "aborted", 5, 7),
        _run("after", "failed", 7, 8),
        _run("fine", "completed", 2, 3),
    ]
    assert [r["id"] for r in _attempts(runs, producing)] == ["run:early", "run:during"]


def test_only_model_versions_and_experiments() -> None:
    costs = Costs(None, None, 10)  # type: ignore[arg-type]  # refused before any read
    for target, message in (
        ("run:x", "not a run id"),
        ("dataset:p/web@v1", "not a dataset_version id"),
        ("nonsense", "target:"),
    ):
        with pytest.raises(InvalidArgumentError, match=message):
            costs.cost(target, Scope.everything())


def test_the_text() -> None:
    rows = [run_cost(_run("a", "completed", 0, 2, resources=EIGHT), "producing run")]
    answer = Costs._answer("model:p/m@1", "model_version", "run:a", None, rows, None, False)
    text = render_cost(answer)
    assert text.splitlines()[0] == "cost of model:p/m@1 (made by run:a)"
    assert "accelerator-hours: 16: producing run 16 (1 run)" in text
    assert "checkpoint storage: 0 B" in text


def _evaluation(version: str, registered: int, value: float, data: str = "eval@v1") -> Any:
    return {
        "version": f"model:p/chat@{version}",
        "registered_at": T.format(registered, 0),
        "evaluation": f"evaluation:{version}-{data}",
        "evaluated_at": T.format(20, 0),
        "suite": "s",
        "suite_version": None,
        "datasets": [f"dataset:p/{data}"],
        "value": value,
    }


def test_the_gain_over_the_previous_best_per_point() -> None:
    rows = [_evaluation("1", 1, 0.50), _evaluation("2", 2, 0.58), _evaluation("3", 3, 0.62)]
    found = gain("model:p/chat@3", "acc", rows, 12.0, higher_is_better=True)
    # the previous best is the best of those registered before it: 0.58 (chat@2)
    assert found["previous_best"] == {"version": "model:p/chat@2", "value": 0.58}
    assert found["gain"] == pytest.approx(0.04) and found["value"] == 0.62
    assert found["accelerator_hours_per_point"] == pytest.approx(3.0)  # 12 over 4 points
    worse = gain("model:p/chat@3", "loss", rows, 12.0)  # lower is better: 0.62 is no gain
    assert worse["gain"] == pytest.approx(-0.12) and worse["accelerator_hours_per_point"] is None
    assert worse["previous_best"] == {"version": "model:p/chat@1", "value": 0.50}


def test_no_gain_figure_without_one_set_or_an_earlier_version() -> None:
    rows = [_evaluation("1", 1, 0.5), _evaluation("2", 2, 0.6), _evaluation("2", 2, 0.7, "v2")]
    two = gain("model:p/chat@2", "acc", rows, 10.0, higher_is_better=True)
    assert two["gain"] is None and "several evaluation sets" in two["message"]
    one = gain("model:p/chat@2", "acc", rows, 10.0, datasets=["dataset:p/eval@v1"])
    assert one["evaluation_set"] == {"datasets": ["dataset:p/eval@v1"], "suite": "s",
                                     "suite_version": None}  # fmt: skip
    first = gain("model:p/chat@1", "acc", rows, 10.0, datasets=["dataset:p/eval@v1"])
    assert first["previous_best"] is None and "first version" in first["message"]
    absent = gain("model:p/chat@9", "acc", rows, 10.0, datasets=["dataset:p/eval@v1"])
    assert "has no evaluation" in absent["message"]
