"""`effects` on plain records: the one-change pairs of a project's experiments grouped by what
changed. Expected values are written from the story below, not computed by the code under test.

The story (project `lm`; every run trains on web@v1 in env img-a with code aaa1111 unless said):
  experiment sweep (runs start at hours 1-4)
    #1 completed  lr 1e-5, batch_size 64, epochs 3          final val/loss 1.10
    #2 completed  lr 2e-5 (one change: lr)                   final val/loss 1.00   delta -0.10
    #3 failed     lr 2e-5, batch_size 128 (one change)       OutOfMemoryError, no metric
    #4 completed  batch_size 64 again (one change, vs a run without a value)  final 0.98
  experiment other (runs start at hours 11-16)
    #1 completed  lr 1e-5                                    final val/loss 1.30
    #2 completed  lr 2e-5 (one change: lr)                   final val/loss 1.24   delta -0.06
    #3 completed  train web@v2 and code bbb2222 (two changes: flagged)   final 1.20
    #4 completed  as #3 (a repeat)                           final 1.21
    #5 failed     batch_size 128 (one change)                OutOfMemoryError
    #6 running    batch_size 64, epochs 5 (two changes against #5: flagged)
  A run outside every experiment (`loose`) changes lr alone against nothing: never a pair.
"""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeCompareReads

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.recipes.compare_service import Comparisons
from provgraph.query.recipes.effects import effects, render_effects
from provgraph.schemas.storage import encode_json, record_key

T = "2026-03-01T{:02d}:00:00.000000Z"


def _run(
    experiment: str | None,
    number: int,
    hour: int,
    *,
    lr: float = 1e-5,
    batch_size: int = 64,
    epochs: int = 3,
    train: str = "web@v1",
    commit: str = "aaa1111",
    status: str = "completed",
    loss: float | None = None,
    error: dict[str, str] | None = None,
) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": f"run:{experiment or 'none'}-{number}",
        "project": "lm",
        "name": f"{experiment}-{number}",
        "run_number": number,
        "status": status,
        "params_json": encode_json({"lr": lr, "batch_size": batch_size, "epochs": epochs}),
        "code_repo": "https://git.example.org/trainer",
        "code_commit": commit,
        "code_dirty": False,
        "started_at": T.format(hour),
    }
    if status != "running":
        props["ended_at"] = T.format(hour + 1)
    if loss is not None:
        props["final_metrics_json"] = encode_json({"val/loss": loss})
    for field, text in (error or {}).items():
        props[record_key("error", field)] = text
    return {
        "run": props,
        "experiment": None if experiment is None else f"experiment:lm/{experiment}",
        "inputs": [{"role": "train", "id": f"dataset:lm/{train}"}],
        "environments": [{"id": "environment:lm/img-a", "key": "img-a"}],
        "bases": [],
        "resumes": [],
    }


V2: dict[str, Any] = {"lr": 2e-5, "train": "web@v2", "commit": "bbb2222"}
OOM = {"type": "OutOfMemoryError", "message": "CUDA out of memory"}


def story() -> list[dict[str, Any]]:
    return [
        _run("sweep", 1, 1, loss=1.10),
        _run("sweep", 2, 2, lr=2e-5, loss=1.00),
        _run("sweep", 3, 3, lr=2e-5, batch_size=128, status="failed", error=OOM),
        _run("sweep", 4, 4, lr=2e-5, loss=0.98),
        _run("other", 1, 11, loss=1.30),
        _run("other", 2, 12, lr=2e-5, loss=1.24),
        _run("other", 3, 13, **V2, loss=1.20),
        _run("other", 4, 14, **V2, loss=1.21),
        _run("other", 5, 15, **V2, batch_size=128, status="failed", error=OOM),
        _run("other", 6, 16, **V2, epochs=5, status="running"),
        _run(None, 1, 20, lr=3e-5, loss=0.5),
    ]


def _by_label(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["label"]: e for e in answer["effects"]}


def test_one_change_pairs_grouped_by_value() -> None:
    answer = effects(story(), project="lm", metric="final:val/loss")
    assert answer["metric"]["key"] == "final:val/loss"
    assert (answer["runs_read"], answer["truncated"]) == (11, False)
    # 8 checked pairs in two experiments: 5 counted, other#3 and other#6 flagged, other#4 a repeat
    assert (answer["pairs"], answer["flagged_pairs"], answer["repeat_pairs"]) == (5, 2, 1)
    found = _by_label(answer)
    assert list(found) == [
        "batch_size: 64 -> 128",
        "lr: 1e-05 -> 2e-05",
        "batch_size: 128 -> 64",
    ]
    lr = found["lr: 1e-05 -> 2e-05"]
    assert (lr["kind"], lr["name"], lr["before"], lr["after"]) == ("param", "lr", 1e-5, 2e-5)
    assert (lr["pairs"], lr["measured"], lr["failed"], lr["running"]) == (2, 2, 0, 0)
    assert lr["mean_delta"] == pytest.approx(-0.08)
    assert lr["spread"] == pytest.approx(0.0282842712, abs=1e-9)  # sd of -0.10 and -0.06
    assert (lr["min_delta"], lr["max_delta"]) == (pytest.approx(-0.1), pytest.approx(-0.06))
    assert [(r["before"], r["after"], r["delta"]) for r in lr["runs"]] == [
        ("run:sweep-1", "run:sweep-2", pytest.approx(-0.1)),
        ("run:other-1", "run:other-2", pytest.approx(-0.06)),
    ]
    bigger = found["batch_size: 64 -> 128"]
    assert (bigger["pairs"], bigger["measured"], bigger["failed"]) == (2, 0, 2)
    assert bigger["mean_delta"] is None and bigger["spread"] is None
    assert bigger["failures"] == [{"error": "OutOfMemoryError", "count": 2}]
    back = found["batch_size: 128 -> 64"]  # against a failed run without a value
    assert (back["pairs"], back["measured"], back["failed"]) == (1, 0, 0)
    assert [r["status"] for r in back["runs"]] == ["completed"]


def test_the_mean_is_exact_without_float_noise() -> None:
    answer = effects(story()[:2], project="lm", metric="val/loss")
    (lr,) = answer["effects"]
    assert lr["mean_delta"] == -0.1 and lr["runs"][0]["delta"] == -0.1
    assert lr["spread"] is None  # one pair has no spread


def test_grouped_by_factor() -> None:
    answer = effects(story(), project="lm", metric="final:val/loss", group_by="factor")
    found = _by_label(answer)
    assert list(found) == ["batch_size: x2", "lr: x2", "batch_size: x0.5"]
    assert found["lr: x2"]["factor"] == 2.0 and found["lr: x2"]["before"] is None
    assert found["batch_size: x2"]["failed"] == 2
    assert answer["group_by"] == "factor"


def test_a_running_later_run_is_pending_not_measured() -> None:
    runs = [*story()[:2], _run("sweep", 3, 3, lr=2e-5, epochs=5, status="running", loss=0.9)]
    found = _by_label(effects(runs, project="lm", metric="final:val/loss"))
    epochs = found["epochs: 3 -> 5"]
    assert (epochs["pairs"], epochs["running"], epochs["measured"]) == (1, 1, 0)
    assert epochs["runs"][0]["delta"] is None


def test_since_keeps_the_pairs_whose_later_run_started_then() -> None:
    answer = effects(story(), project="lm", metric="final:val/loss", since=T.format(15))
    # other#5 (batch_size, counted) and other#6 (flagged) started at or after hour 15
    assert (answer["pairs"], answer["flagged_pairs"], answer["repeat_pairs"]) == (1, 1, 0)
    assert list(_by_label(answer)) == ["batch_size: 64 -> 128"]
    assert answer["since"] == T.format(15)


def test_a_failure_without_a_type_is_named_by_its_message() -> None:
    nan = {"message": "NaN loss at step 40"}
    runs = [*story()[:1], _run("sweep", 2, 2, lr=2e-5, status="failed", error=nan)]
    (lr,) = effects(runs, project="lm", metric="final:val/loss")["effects"]
    assert lr["failures"] == [{"error": "NaN loss at step 40", "count": 1}]


def test_unknown_metric_and_grouping_are_invalid_arguments() -> None:
    with pytest.raises(InvalidArgumentError, match=r"no run has the metric 'acc'.*final:val/loss"):
        effects(story(), project="lm", metric="acc")
    with pytest.raises(InvalidArgumentError, match="group by 'ratio'"):
        effects(story(), project="lm", metric="val/loss", group_by="ratio")


def test_the_table() -> None:
    text = render_effects(effects(story(), project="lm", metric="final:val/loss"))
    lines = text.splitlines()
    assert lines[0] == "lm: effect on final:val/loss of one change at a time"
    assert lines[2].split() == [
        "change", "kind", "pairs", "measured", "mean", "Δ", "±", "sd", "min", "Δ", "max", "Δ",
        "failed", "running",
    ]  # fmt: skip
    rows = {line.split("  ")[0]: line for line in lines[4:7]}
    assert "2 of 2: OutOfMemoryError x2" in rows["batch_size: 64 -> 128"]
    assert "-0.08 ± 0.028" in rows["lr: 1e-05 -> 2e-05"]
    assert lines[-2] == (
        "Counted: 5 pairs with exactly one change, of 11 runs. Left out: 2 flagged (more than "
        "one change), 1 with nothing changed."
    )


class TestService:
    def _service(self, limit: int) -> tuple[Comparisons, FakeCompareReads]:
        by_experiment: dict[str, list[dict[str, Any]]] = {}
        for record in story():
            if record["experiment"] is not None:
                by_experiment.setdefault(record["experiment"], []).append(record)
        reads = FakeCompareReads.from_records(by_experiment)
        return Comparisons(reads, 500, effects_max_runs=limit), reads

    def test_the_whole_project(self) -> None:
        service, _ = self._service(5000)
        answer = service.effects(Scope.everything(), project="lm", metric="val/loss")
        assert (answer["runs_read"], answer["pairs"], answer["truncated"]) == (10, 5, False)

    def test_at_most_the_limit_the_latest_runs(self) -> None:
        service, reads = self._service(3)  # ten runs: several times the limit
        answer = service.effects(Scope.everything(), project="lm", metric="val/loss")
        assert (answer["runs_read"], answer["truncated"]) == (3, True)
        assert reads.asked_projects == [("lm", 4, Scope.everything())]  # one more, to know
        # other#4..#6 were read: #5 vs #4 counted, #6 vs #5 flagged, #4 has no earlier run read
        assert (answer["pairs"], answer["flagged_pairs"], answer["repeat_pairs"]) == (1, 1, 0)

    def test_not_found_and_scope(self) -> None:
        service, _ = self._service(5000)
        with pytest.raises(NotFoundError, match="project nowhere"):
            service.effects(Scope.everything(), project="nowhere", metric="val/loss")
        with pytest.raises(NotFoundError):
            service.effects(Scope(frozenset({"other"})), project="lm", metric="val/loss")
        with pytest.raises(InvalidArgumentError, match="project"):
            service.effects(Scope.everything(), project="", metric="val/loss")
