"""The pure part of `best`: evaluation sets never mixed, latest evaluation per version, the
best, the version it displaced, the delta, and the text answer."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.best_model import best_answer, model_of, render_best

M = "model:p/chat"
SET_A = "dataset:p/eval-a@v1"
SET_B = "dataset:p/eval-b@v1"


def _row(
    version: str, value: Any, *, data: str = SET_A, at: str = "1", **kw: Any
) -> dict[str, Any]:
    return {
        "version": f"{M}@{version}",
        "label": version,
        "status": "candidate",
        "registered_at": f"2026-01-0{version}T00:00:00.000000Z",
        "evaluation": kw.get("evaluation", f"evaluation:{version}-{data[-4:]}-{at}"),
        "evaluated_at": f"2026-02-0{at}T00:00:00.000000Z",
        "suite": kw.get("suite", "harness"),
        "suite_version": None,
        "datasets": [data],
        "value": value,
    }


# Versions 1..4 on set A (acc): 0.50, 0.62, 0.58, 0.66; on set B: 0.90, 0.70, 0.80, 0.85.
ROWS = [
    _row("1", 0.50),
    _row("2", 0.62),
    _row("3", 0.58),
    _row("4", 0.66),
    _row("1", 0.90, data=SET_B),
    _row("2", 0.70, data=SET_B),
    _row("3", 0.80, data=SET_B),
    _row("4", 0.85, data=SET_B),
]


def test_without_a_dataset_two_sets_are_listed_not_mixed() -> None:
    answer = best_answer(M, "acc", ROWS, higher_is_better=True)
    assert answer["ambiguous"] is True
    assert answer["best"] is None and answer["ranking"] == []
    assert [(s["datasets"], s["versions"]) for s in answer["evaluation_sets"]] == [
        ([SET_A], 4),
        ([SET_B], 4),
    ]
    assert "2 evaluation sets" in answer["message"]


def test_best_on_one_set_and_the_version_it_displaced() -> None:
    answer = best_answer(M, "acc", ROWS, datasets=[SET_A], higher_is_better=True)
    assert answer["evaluation_set"] == {
        "datasets": [SET_A],
        "suite": "harness",
        "suite_version": None,
    }
    assert answer["best"]["version"] == f"{M}@4"
    # Before 4: 1 (0.50), 2 (0.62), 3 (0.58): 2 was the best.
    assert answer["previous_best"]["version"] == f"{M}@2"
    assert answer["delta"] == pytest.approx(0.04)
    assert [s["label"] for s in answer["ranking"]] == ["4", "2", "3", "1"]


def test_on_the_other_set_the_first_version_is_best() -> None:
    answer = best_answer(M, "acc", ROWS, datasets=[SET_B], higher_is_better=True)
    assert answer["best"]["version"] == f"{M}@1"
    assert answer["previous_best"] is None and answer["delta"] is None
    assert answer["message"] == "the best is the first version evaluated on this set"


def test_lower_is_better_by_default() -> None:
    answer = best_answer(M, "loss", ROWS, datasets=[SET_A])
    assert answer["best"]["label"] == "1" and answer["previous_best"] is None


def test_a_re_evaluation_replaces_the_earlier_value() -> None:
    rows = [*ROWS, _row("2", 0.70, at="9")]  # version 2 re-evaluated later on set A: 0.70
    answer = best_answer(M, "acc", rows, datasets=[SET_A], higher_is_better=True)
    assert answer["best"]["label"] == "2" and answer["best"]["value"] == 0.70
    # Only version 1 was registered before version 2.
    assert answer["previous_best"]["label"] == "1"
    assert answer["delta"] == pytest.approx(0.20)


def test_a_tie_goes_to_the_earlier_version() -> None:
    rows = [_row("1", 0.5), _row("2", 0.7), _row("3", 0.7)]
    answer = best_answer(M, "acc", rows, higher_is_better=True)
    assert (answer["best"]["label"], answer["previous_best"]["label"]) == ("2", "1")


def test_suites_are_sets_of_their_own_and_non_numbers_are_ignored() -> None:
    rows = [_row("1", 0.5), _row("2", 0.9, suite="other"), _row("3", "n/a")]
    answer = best_answer(M, "acc", rows, datasets=[SET_A], higher_is_better=True)
    assert answer["ambiguous"] is True
    picked = best_answer(M, "acc", rows, datasets=[SET_A], suite="other", higher_is_better=True)
    assert picked["best"]["label"] == "2" and [r["label"] for r in picked["ranking"]] == ["2"]


def test_nothing_recorded_or_no_set_matching() -> None:
    none = best_answer(M, "acc", [])
    assert none["best"] is None and not none["ambiguous"]
    assert none["message"] == f"no evaluation of {M} records the metric 'acc' as a number"
    other = best_answer(M, "acc", ROWS, datasets=["dataset:p/other@v1"])
    assert other["best"] is None and len(other["evaluation_sets"]) == 2
    assert "no evaluation set is exactly dataset:p/other@v1" in other["message"]


def test_model_of() -> None:
    assert model_of("model:p/chat", None) == "model:p/chat"
    assert model_of("model:p/chat@1.0", None) == "model:p/chat"
    assert model_of("chat", "p") == "model:p/chat"
    with pytest.raises(InvalidArgumentError):
        model_of("chat", None)
    with pytest.raises(InvalidArgumentError):
        model_of("bad name!", "p")


def test_render_best_shows_best_previous_delta_and_the_changes() -> None:
    answer = best_answer(M, "acc", ROWS, datasets=[SET_A], higher_is_better=True)
    answer["diff"] = {
        "chain": [{"level": 0, "summary": "params differ"}],
        "params": {"added": {}, "removed": {}, "changed": {"lr": {"a": 0.001, "b": 0.0003}}},
    }
    text = render_best(answer)
    assert f"best:          {M}@4 = 0.66" in text
    assert f"previous best: {M}@2 = 0.62" in text
    assert "delta:         +0.04" in text
    assert "  level 0: params differ" in text and "  param lr: 0.001 -> 0.0003" in text
    listed = render_best(best_answer(M, "acc", ROWS))
    assert "choose one with --dataset" in listed and SET_B in listed
