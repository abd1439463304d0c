"""`checkpoints RUN`, the pure part (`recipes/checkpoint_stages.py`): step order, each metric's
change from the previous checkpoint with a value on the same evaluation set (two sets never
mixed), `--metric`, the bound, and errors."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeCheckpointReads

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError, InvalidIdError
from provgraph.query.read.checkpoint_reads import (
    CheckpointEvaluation,
    RunCheckpoints,
    SavedCheckpoint,
)
from provgraph.query.read.model import Scope
from provgraph.query.recipes.checkpoint_stages import (
    CheckpointStages,
    render_stages,
    stages_answer,
)
from provgraph.schemas.conventions import Conventions

pytestmark = pytest.mark.unit

RUN = "run:r-pre"
A = ("dataset:p/eval-suite@v1",)
B = ("dataset:p/heldout@v2",)


def evaluation(key: str, data: tuple[str, ...], at: str, **metrics: Any) -> CheckpointEvaluation:
    return CheckpointEvaluation(f"evaluation:{key}", "eval-suite", "1", data, metrics, True, at)


def checkpoint(step: int, *evaluations: CheckpointEvaluation, **metrics: Any) -> SavedCheckpoint:
    return SavedCheckpoint(
        f"checkpoint:r-pre/{step}", step, f"t{step}", "available", metrics, evaluations
    )


STORY = RunCheckpoints(
    RUN,
    "p",
    4,
    (
        checkpoint(1000, evaluation("a1", A, "1", acc=0.40), loss=2.5),
        checkpoint(2000, evaluation("b2", B, "2", acc=0.90), loss=2.0),  # only set B
        checkpoint(
            3000,
            evaluation("a3", A, "3", acc=0.55, f1=0.2),
            evaluation("a3-again", A, "4", acc=0.50),
        ),
        checkpoint(4000, evaluation("a4", A, "5", acc=0.60), evaluation("b4", B, "6", acc=0.80)),
    ),
)


def metric(answer: dict[str, Any], step: int, evaluation_id: str, name: str) -> dict[str, Any]:
    (row,) = [
        r
        for r in answer["results"]
        if (r["step"], r["evaluation"], r["metric"]) == (step, f"evaluation:{evaluation_id}", name)
    ]
    return row


def test_each_change_is_from_the_previous_checkpoint_with_a_value_on_the_same_set() -> None:
    answer = stages_answer(STORY, None, 200)
    assert [s["step"] for s in answer["checkpoints"]] == [1000, 2000, 3000, 4000]
    assert metric(answer, 1000, "a1", "acc")["change"] is None  # nothing before it
    assert metric(answer, 2000, "b2", "acc")["change"] is None  # set B: never set A's 0.40
    a3 = metric(answer, 3000, "a3", "acc")  # skips 2000, which has no value on set A
    assert (a3["previous_step"], a3["previous_value"], a3["change"]) == (1000, 0.40, 0.15)
    assert metric(answer, 3000, "a3-again", "acc")["change"] == 0.10  # also from 1000
    # 3000's latest evaluation on set A (0.50) is what 4000 is compared with
    a4 = metric(answer, 4000, "a4", "acc")
    assert (a4["previous_checkpoint"], a4["change"]) == ("checkpoint:r-pre/3000", 0.10)
    assert metric(answer, 4000, "b4", "acc")["change"] == pytest.approx(-0.10)
    assert metric(answer, 3000, "a3", "f1")["change"] is None
    assert answer["checkpoints"][0]["metrics"] == [{"name": "loss", "value": 2.5}]
    assert (answer["total"], answer["truncated"]) == (4, False)
    assert [s["evaluations"] for s in answer["checkpoints"]] == [1, 1, 2, 2]
    assert [(r["step"], r["metric"]) for r in answer["results"]][:4] == [
        (1000, "acc"),
        (2000, "acc"),
        (3000, "acc"),
        (3000, "f1"),
    ]


def test_an_evaluation_without_metrics_still_has_its_row() -> None:
    found = RunCheckpoints(RUN, "p", 1, (checkpoint(1, evaluation("x", A, "1")),))
    (row,) = stages_answer(found, None, 10)["results"]
    assert (row["evaluation"], row["metric"], row["value"]) == ("evaluation:x", None, None)


def test_metric_keeps_one_metric_everywhere() -> None:
    answer = stages_answer(STORY, "f1", 200)
    assert [(r["step"], r["metric"]) for r in answer["results"]] == [(3000, "f1")]
    assert all(s["metrics"] == [] for s in answer["checkpoints"])
    assert [m["name"] for m in stages_answer(STORY, "loss", 200)["checkpoints"][1]["metrics"]] == [
        "loss"
    ]


def test_a_metric_no_checkpoint_records_is_refused_naming_the_recorded_ones() -> None:
    with pytest.raises(InvalidArgumentError, match=r"'bleu'.*recorded: acc, f1, loss"):
        stages_answer(STORY, "bleu", 200)


def test_a_non_numeric_value_has_no_change() -> None:
    found = RunCheckpoints(
        RUN,
        "p",
        2,
        (
            checkpoint(1, evaluation("x", A, "1", grade="B")),
            checkpoint(2, evaluation("y", A, "2", grade="A")),
        ),
    )
    row = metric(stages_answer(found, None, 10), 2, "y", "grade")
    assert (row["previous_value"], row["change"]) == ("B", None)


def test_the_text_answer_shows_every_stage_and_change() -> None:
    text = render_stages(stages_answer(STORY, None, 200))
    assert text.splitlines()[0] == f"{RUN}: 4 checkpoints, in step order"
    assert "step 1000  checkpoint:r-pre/1000  saved t1000  loss 2.5" in text
    assert "0.6 (+0.1 since step 3000)" in text
    assert "0.8 (-0.1 since step 2000)" in text


def test_the_bound_keeps_the_latest_steps_of_a_run_several_times_larger() -> None:
    many = [
        checkpoint(s * 100, evaluation(f"e{s}", A, f"{s:04}", acc=s / 100)) for s in range(1, 41)
    ]
    reads = FakeCheckpointReads()
    reads.run_checkpoints = (
        lambda run, scope, limit: RunCheckpoints(  # type: ignore[method-assign]
            run, "p", len(many), tuple(many[-limit:])
        )
    )
    answer = CheckpointStages(reads, 8).stages(RUN, Scope.everything())
    assert [s["step"] for s in answer["checkpoints"]] == [s * 100 for s in range(33, 41)]
    assert (answer["total"], answer["limit"], answer["truncated"]) == (40, 8, True)
    assert "8 of 40 checkpoints" in render_stages(answer)


def test_missing_runs_and_ids_that_are_no_run() -> None:
    stages = CheckpointStages(FakeCheckpointReads(), 10)
    with pytest.raises(NotFoundError, match="run:nowhere"):
        stages.stages("run:nowhere", Scope.everything())
    with pytest.raises(InvalidArgumentError, match="not a checkpoint id"):
        stages.stages("checkpoint:r-pre/1000", Scope.everything())
    with pytest.raises(InvalidIdError):
        stages.stages("r-pre", Scope.everything())


class _Declared:
    """Project p declares `accuracy` an alias of `acc` (`ConventionReads.conventions`)."""

    def conventions(self, project: str, scope: Scope) -> Conventions | None:
        return Conventions(metric_aliases={"accuracy": "acc"}) if project == "p" else None


def test_a_metric_under_a_declared_alias_is_compared_under_its_canonical_name() -> None:
    found = RunCheckpoints(
        RUN,
        "p",
        2,
        (
            checkpoint(1, evaluation("x", A, "1", acc=0.3), accuracy=0.9),
            checkpoint(2, evaluation("y", A, "2", accuracy=0.36, acc=0.35)),  # both: acc's kept
        ),
    )
    reads = FakeCheckpointReads()
    reads.run_checkpoints = lambda run, scope, limit: found  # type: ignore[method-assign]
    stages = CheckpointStages(reads, 10, _Declared())  # type: ignore[arg-type]
    for asked in (None, "acc", "accuracy"):
        answer = stages.stages(RUN, Scope.everything(), asked)
        assert answer["metric"] == (None if asked is None else "acc")
        assert metric(answer, 2, "y", "acc")["change"] == pytest.approx(0.05)
        assert [r["metric"] for r in answer["results"]] == ["acc", "acc"]
    saved = stages.stages(RUN, Scope.everything())["checkpoints"][0]["metrics"]
    assert saved == [{"name": "acc", "value": 0.9}]
    undeclared = CheckpointStages(reads, 10)  # no conventions read: names as recorded
    names = [r["metric"] for r in undeclared.stages(RUN, Scope.everything())["results"]]
    assert names == ["acc", "accuracy", "acc"]
