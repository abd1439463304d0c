"""`compare` on plain records: the table, metric definitions, the one-change check, sorting,
the service's arguments and the text rendering. Expected values are written from the story
below, not computed by the code under test.

The story (experiment `lm/sweep`):
  #1 completed  lr 3e-4, bs 512, train web@v1, env img-a, code aaa1111; final val/loss 2.0,
                logged train/loss 2.5 (step 100)
  #2 completed  lr 1e-4 (one change)                       final val/loss 1.8, train/loss 2.3
  #3 failed     lr 1e-4, train web@v2, code bbb2222 (two changes); logged eval/loss 1.7 only
  #4 completed  as #3, resumed from #3's checkpoint at step 50; no conclusion; env img-a2 has
                the same image and packages as img-a (not a change); final val/loss 1.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from fakes import FakeCompareReads

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.compare_reads import COMPARE_RUNS
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.recipes.compare_answer import compare_runs
from provgraph.query.recipes.compare_service import Comparisons
from provgraph.query.recipes.compare_table import render_comparison
from provgraph.query.recipes.comparing import MetricDef
from provgraph.schemas.storage import encode_json

EXP = "experiment:lm/sweep"
EVERYTHING = Scope.everything()
T = "2026-03-01T{:02d}:00:00.000000Z"


def _env(key: str) -> dict[str, Any]:
    return {
        "id": f"environment:lm/{key}",
        "key": key,
        "image_name": "registry.example.org/trainer",
        "image_tag": "2026.03",
        "packages_json": encode_json({"torch": "2.5.1"}),
    }


def _run(
    number: int,
    *,
    lr: float,
    train: str = "web@v1",
    commit: str = "aaa1111",
    env: str = "img-a",
    status: str = "completed",
    final: dict[str, Any] | None = None,
    logged: dict[str, tuple[float, int]] | None = None,
    resumes: Sequence[dict[str, Any]] = (),
    **extra: Any,
) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": f"run:sweep-{number}",
        "name": f"sweep-{number}",
        "run_number": number,
        "status": status,
        "params_json": encode_json({"lr": lr, "batch_size": 512}),
        "code_repo": "https://git.example.org/trainer",
        "code_commit": commit,
        "code_dirty": False,
        "code_branch": f"b{number}",  # a branch name is not the code
        "started_at": T.format(number),
        "ended_at": T.format(number + 1),
        **extra,
    }
    if final:
        props["final_metrics_json"] = encode_json(final)
    for name, (value, step) in (logged or {}).items():
        props[f"metric.{name}"] = value
        props[f"metric_step.{name}"] = step
    return {
        "run": props,
        "experiment": EXP,
        "inputs": [
            {"role": "validation", "id": "dataset:lm/heldout@v1"},
            {"role": "train", "id": f"dataset:lm/{train}"},
        ],
        "environments": [_env(env)],
        "bases": [],
        "resumes": list(resumes),
    }


def story() -> list[dict[str, Any]]:
    """The four runs, in an order other than their numbers."""
    return [
        _run(
            3,
            lr=1e-4,
            train="web@v2",
            commit="bbb2222",
            status="failed",
            logged={"eval/loss": (1.7, 40)},
            error_type="OOM",
            error_message="CUDA out of memory",
            conclusion="batch too large for v2 shards",
        ),
        _run(
            1,
            lr=3e-4,
            final={"val/loss": 2.0},
            logged={"train/loss": (2.5, 100)},
            conclusion="baseline",
        ),
        _run(
            4,
            lr=1e-4,
            train="web@v2",
            commit="bbb2222",
            env="img-a2",
            final={"val": {"loss": 1.5}},
            resumes=[{"id": "checkpoint:sweep-3/50", "step": 50, "run": "run:sweep-3"}],
        ),
        _run(
            2,
            lr=1e-4,
            final={"val/loss": 1.8},
            logged={"train/loss": (2.3, 100)},
            conclusion="lower lr helps",
        ),
    ]


def _by_id(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in answer["runs"]}


def test_rows_in_number_order_with_the_differing_params_only() -> None:
    answer = compare_runs(story(), experiment=EXP)
    assert [r["number"] for r in answer["runs"]] == [1, 2, 3, 4]
    assert answer["params"] == ["lr"]  # batch_size is 512 everywhere
    assert [r["params"] for r in answer["runs"]] == [
        [{"name": "lr", "value": 3e-4}],
        [{"name": "lr", "value": 1e-4}],
        [{"name": "lr", "value": 1e-4}],
        [{"name": "lr", "value": 1e-4}],
    ]
    assert compare_runs(story(), everything=True)["params"] == ["batch_size", "lr"]


def test_one_change_at_a_time() -> None:
    runs = _by_id(compare_runs(story(), experiment=EXP))
    assert runs["run:sweep-1"]["check"] == {
        "against": None,
        "basis": None,
        "changes": [],
        "flagged": False,
        "unverifiable": [],
    }
    assert runs["run:sweep-2"]["check"]["changes"] == [
        {"kind": "param", "name": "lr", "before": 3e-4, "after": 1e-4}
    ]
    assert runs["run:sweep-2"]["check"]["flagged"] is False
    three = runs["run:sweep-3"]["check"]
    assert three["against"] == "run:sweep-2" and three["basis"] == "previous"
    assert three["changes"] == [
        {
            "kind": "input",
            "name": "train dataset:lm/web",
            "before": "dataset:lm/web@v1",
            "after": "dataset:lm/web@v2",
        },
        {"kind": "code", "name": "code", "before": "aaa1111", "after": "bbb2222"},
    ]
    assert three["flagged"] is True
    # Same settings as #3; img-a2 holds what img-a holds; resuming is not a setting.
    assert runs["run:sweep-4"]["check"]["changes"] == []
    assert compare_runs(story())["flagged"] == ["run:sweep-3"]


def test_a_baseline_is_every_run_s_comparison_run() -> None:
    answer = compare_runs(story(), baseline="run:sweep-1")
    runs = _by_id(answer)
    assert answer["basis"] == "baseline" and runs["run:sweep-1"]["check"]["against"] is None
    assert runs["run:sweep-4"]["check"]["against"] == "run:sweep-1"
    assert [c["kind"] for c in runs["run:sweep-4"]["check"]["changes"]] == [
        "param",
        "input",
        "code",
    ]
    assert answer["flagged"] == ["run:sweep-3", "run:sweep-4"]


def test_metrics_under_one_definition_with_gaps() -> None:
    answer = compare_runs(story())
    assert [m["key"] for m in answer["metrics"]] == [
        "final:val/loss",
        "last:eval/loss",
        "last:train/loss",
    ]
    assert answer["metrics"][0] == {
        "key": "final:val/loss",
        "source": "final",
        "name": "val/loss",
        "split": "val",
        "metric": "loss",
    }
    cells = {r["number"]: {m["key"]: m["value"] for m in r["metrics"]} for r in answer["runs"]}
    assert cells[3] == {"final:val/loss": None, "last:eval/loss": 1.7, "last:train/loss": None}
    assert cells[4] == {"final:val/loss": 1.5, "last:eval/loss": None, "last:train/loss": None}
    assert answer["runs"][0]["metrics"][2] == {"key": "last:train/loss", "value": 2.5, "step": 100}


def test_split_and_name_of_a_definition() -> None:
    assert (MetricDef("last", "loss").split, MetricDef("last", "loss").metric) == (None, "loss")
    assert MetricDef("final", "eval/mmlu/acc").split == "eval"
    assert MetricDef("final", "eval/mmlu/acc").metric == "mmlu/acc"


def test_sorted_by_a_metric_gaps_last_either_way() -> None:
    up = compare_runs(story(), sort_by="val/loss")
    assert up["sort_by"] == "final:val/loss"
    assert [r["number"] for r in up["runs"]] == [4, 2, 1, 3]
    down = compare_runs(story(), sort_by="-final:val/loss")
    assert [r["number"] for r in down["runs"]] == [1, 2, 4, 3]
    logged = compare_runs(story(), sort_by="eval/loss")
    assert logged["sort_by"] == "last:eval/loss" and logged["runs"][0]["number"] == 3
    # The checks do not depend on the display order.
    assert up["flagged"] == ["run:sweep-3"]
    with pytest.raises(InvalidArgumentError, match="no run has the metric 'acc'"):
        compare_runs(story(), sort_by="acc")


def test_status_outcomes_duration_and_resume() -> None:
    runs = _by_id(compare_runs(story()))
    failed = runs["run:sweep-3"]
    assert failed["status"] == "failed"
    assert failed["error"] == {"type": "OOM", "message": "CUDA out of memory"}
    assert failed["conclusion"] == "batch too large for v2 shards"
    assert failed["conclusion_missing"] is False
    resumed = runs["run:sweep-4"]
    assert resumed["conclusion_missing"] is True
    assert resumed["resumed_from"] == [
        {"id": "checkpoint:sweep-3/50", "step": 50, "run": "run:sweep-3"}
    ]
    assert resumed["duration_s"] == 3600.0
    assert resumed["code"] == {
        "repo": "https://git.example.org/trainer",
        "commit": "bbb2222",
        "dirty": False,
    }
    assert resumed["environment"] == {
        "id": "environment:lm/img-a2",
        "image": "registry.example.org/trainer:2026.03",
    }
    assert resumed["inputs"] == [
        {"role": "train", "dataset_version": "dataset:lm/web@v2"},
        {"role": "validation", "dataset_version": "dataset:lm/heldout@v1"},
    ]


def test_dirty_trees_and_a_changed_base() -> None:
    a, b = _run(1, lr=1.0, code_dirty=True), _run(2, lr=1.0, code_dirty=True)
    b["bases"] = [{"id": "model:lm/base@2", "type": "ModelVersion"}]
    a["bases"] = [{"id": "model:lm/base@1", "type": "ModelVersion"}]
    check = _by_id(compare_runs([a, b]))["run:sweep-2"]["check"]
    assert check["changes"] == [
        {"kind": "base", "name": "base", "before": "model:lm/base@1", "after": "model:lm/base@2"}
    ]
    assert check["unverifiable"] == [
        "code: both trees were dirty (uncommitted changes cannot be compared)"
    ]


def test_an_environment_with_other_contents_is_a_change() -> None:
    a, b = _run(1, lr=1.0), _run(2, lr=1.0, env="img-b")
    b["environments"][0]["packages_json"] = encode_json({"torch": "2.6.0"})
    check = _by_id(compare_runs([a, b]))["run:sweep-2"]["check"]
    assert check["changes"] == [
        {
            "kind": "environment",
            "name": "environment",
            "before": "environment:lm/img-a",
            "after": "environment:lm/img-b",
        }
    ]


def _reads(others: list[dict[str, Any]]) -> FakeCompareReads:
    """The compare read on plain records: the experiment's runs, highest number first."""
    members = sorted(story(), key=lambda r: -int(r["run"]["run_number"]))
    return FakeCompareReads.from_records({EXP: members}, others)


def test_service_truncates_to_the_latest_runs() -> None:
    reads = _reads([])
    answer = Comparisons(reads, max_runs=3).compare(EVERYTHING, experiment=EXP)
    assert reads.asked == [(EXP, [], 4, EVERYTHING)]
    assert answer["truncated"] is True
    assert [r["number"] for r in answer["runs"]] == [2, 3, 4]
    assert Comparisons(_reads([]), 4).compare(EVERYTHING, experiment=EXP)["truncated"] is False


def test_service_arguments_and_not_found() -> None:
    service = Comparisons(_reads(story()), max_runs=10)
    with pytest.raises(InvalidArgumentError, match="one of them"):
        service.compare(EVERYTHING)
    with pytest.raises(InvalidArgumentError, match="one of them"):
        service.compare(EVERYTHING, experiment=EXP, runs=["run:sweep-1"])
    with pytest.raises(InvalidArgumentError, match="experiment takes a experiment id"):
        service.compare(EVERYTHING, experiment="run:sweep-1")
    with pytest.raises(InvalidArgumentError, match="baseline takes a run id"):
        service.compare(EVERYTHING, experiment=EXP, baseline="experiment:lm/other")
    with pytest.raises(NotFoundError, match="experiment:lm/none"):
        service.compare(EVERYTHING, experiment="experiment:lm/none")
    with pytest.raises(NotFoundError, match="run:sweep-9"):
        service.compare(EVERYTHING, runs=["run:sweep-1", "run:sweep-9"])
    answer = service.compare(EVERYTHING, runs=["run:sweep-2", "run:sweep-1"])
    assert [r["number"] for r in answer["runs"]] == [1, 2]


def test_rendered_table_and_checks() -> None:
    text = render_comparison(compare_runs(story(), experiment=EXP))
    lines = text.splitlines()
    assert lines[0] == f"{EXP}: 4 runs, each checked against the previous run"
    header = lines[2].split()
    assert header[:5] == ["run", "name", "status", "lr", "train"]
    assert header[-3:] == ["duration", "changes", "flag"]
    row3 = next(line for line in lines if line.startswith("#3 "))
    assert "web@v2" in row3 and row3.split()[-3:] == ["1h00m", "2", "FLAG"]
    assert (
        "  #3 vs #2: FLAGGED, 2 settings differ: train web: web@v1 -> web@v2; "
        "code: aaa1111 -> bbb2222"
    ) in lines
    assert "  #2 vs #1: lr: 0.0003 -> 0.0001" in lines
    assert "  #4 vs #3: no setting differs" in lines
    assert (
        "  #3 failed: error OOM: CUDA out of memory; conclusion: batch too large for v2 shards"
    ) in lines
    assert "  #4 completed: conclusion missing" in lines


def test_the_read_filters_every_node_it_returns_or_walks_by_scope() -> None:
    for var in ("x", "r", "cx", "cd", "ce", "cb", "cc", "cr"):
        assert visible(var) in COMPARE_RUNS, var
    assert "LIMIT $limit" in COMPARE_RUNS and live("r") in COMPARE_RUNS
