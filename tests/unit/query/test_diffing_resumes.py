"""A run resumed from its own checkpoint is the same run continued: not a cause of a diff."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.recipes.diffing import causes, compare, run_facts

pytestmark = pytest.mark.unit


def _record(run: str, resumes: list[str]) -> dict[str, Any]:
    """A `RUN` query record: one param, one input, one environment, a base model."""
    return {
        "run": {"id": f"run:{run}", "params_json": '{"lr": 0.0001}'},
        "inputs": [{"role": "train", "id": "dataset:p/web@v1"}],
        "environments": [{"id": "environment:p/img"}],
        "bases": [{"props": {"id": "model:p/base@1"}, "type": "ModelVersion", "runs": ["run:b"]}],
        "resumes": [{"props": {"id": c, "step": int(c.rsplit("/", 1)[1])}} for c in resumes],
    }


def test_resuming_from_its_own_checkpoint_is_not_a_cause() -> None:
    plain = run_facts(_record("r1", []))
    resumed = run_facts(_record("r2", ["checkpoint:r2/100"]))
    assert causes(plain, resumed) == []
    base = compare(plain, resumed)["base"]
    assert base["changed"] is False
    assert base["resumed_from"] == {"a": [], "b": ["checkpoint:r2/100"]}  # still shown


def test_resuming_from_another_runs_checkpoint_is_a_change_of_base() -> None:
    plain = run_facts(_record("r1", []))
    continued = run_facts(_record("r3", ["checkpoint:r2/100"]))
    assert causes(plain, continued) == ["base"]
    assert compare(plain, continued)["base"]["changed"] is True
