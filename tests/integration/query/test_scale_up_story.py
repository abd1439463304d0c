"""`scale-up` on a seeded story in Neo4j, through GraphQL and through `provgraph scale-up`.

The story (project p, experiment `scale`, from 2026-04-01 00:00; the answers below are written
from it by hand):

  pilot-1  1 node x 8 H100 (data parallel 8), lr 3e-4 on web@v1; completed.
           val/loss 2.4, 2.0, 1.7 at steps 100, 200, 400; train/loss 2.5, 1.9 at 100, 400;
           acc 0.3 at 400 (the scale-up logs no acc)
  big-1    scales up pilot-1: 8 x 8 H100 (data parallel 64), nothing else changed; completed.
           val/loss 2.3, 1.9, 1.6, 1.2 at 100, 200, 400, 1600; train/loss 2.5, 2.0 at 100, 400
  big-2    scales up pilot-1: 4 x 8 H100 (no parallelism recorded), lr 6e-4 and web@v2 (two
           other changes); failed. val/loss 2.4, 2.6 at 100, 400
  lone     names no pilot
  early    scales up run p-ghost, which never started

  big-1: x8 accelerators (8 -> 64); resources num_nodes 1 -> 8 and parallelism.data 8 -> 64;
  no other change. Shared steps 100-400: val/loss fell 0.7 in both and ended lower at scale
  (1.6 against 1.7): held; train/loss fell 0.6 in the pilot and 0.5 at scale, ending higher
  (2.0 against 1.9): weaker. So the trend did not hold.
  big-2: x4 (8 -> 32), num_nodes 1 -> 4 and parallelism.data 8 -> none; flagged with two other
  changes (lr, the train input); val/loss rose at scale where the pilot's fell: reversed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import shown_output, text_mismatch
from support.stories import graphql_result, provgraph_cli, seed_story

T0 = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]
Step = tuple[str, dict[str, Any], float]
H100 = {"devices_per_node": 8, "accelerator": "H100"}


def _start(p: str, key: str, hour: float, **extra: Any) -> Step:
    payload = {
        "run_id": f"{p}-{key}",
        "experiment": f"experiment:{p}/scale",
        "name": key,
        "params": {"lr": 3e-4},
        "inputs": [{"dataset_version": f"dataset:{p}/web@v1", "role": "train"}],
        **extra,
    }
    return ("run.started", payload, hour)


def _logged(p: str, key: str, hour: float, **series: list[tuple[int, float]]) -> Step:
    points = [
        {"name": name.replace("_", "/"), "step": step, "value": value}
        for name, steps in series.items()
        for step, value in steps
    ]
    return ("run.metrics.logged", {"run_id": f"{p}-{key}", "points": points}, hour)


def story(p: str) -> list[Step]:
    pilot = f"run:{p}-pilot-1"
    web_v2 = [{"dataset_version": f"dataset:{p}/web@v2", "role": "train"}]
    return [
        ("experiment.created", {"key": "scale", "number": 1, "goal": "pilot, then scale"}, 0),
        _start(p, "pilot-1", 0, resources={"num_nodes": 1, **H100, "parallelism": {"data": 8}}),
        _logged(p, "pilot-1", 1, val_loss=[(100, 2.4), (200, 2.0), (400, 1.7)],
                train_loss=[(100, 2.5), (400, 1.9)], acc=[(400, 0.3)]),
        ("run.completed", {"run_id": f"{p}-pilot-1"}, 2),
        _start(p, "big-1", 3, scaled_from=pilot,
               resources={"num_nodes": 8, **H100, "parallelism": {"data": 64}}),
        _logged(p, "big-1", 4, val_loss=[(100, 2.3), (200, 1.9), (400, 1.6), (1600, 1.2)],
                train_loss=[(100, 2.5), (400, 2.0)]),
        ("run.completed", {"run_id": f"{p}-big-1"}, 5),
        _start(p, "big-2", 6, scaled_from=pilot, params={"lr": 6e-4}, inputs=web_v2,
               resources={"num_nodes": 4, **H100}),
        _logged(p, "big-2", 7, val_loss=[(100, 2.4), (400, 2.6)]),
        ("run.failed", {"run_id": f"{p}-big-2", "error": {"type": "Diverged", "message": ""}}, 8),
        _start(p, "lone", 9),
        _start(p, "early", 10, scaled_from=f"run:{p}-ghost"),
    ]  # fmt: skip


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    seed_story(neo4j_driver, project, story(project), T0)
    return project


QUERY = """query($run: ID!) {
  scaleUp(run: $run) {
    run flagged flag unverifiable trendHeld
    pilot { id name experiment status resources accelerators }
    scaleUp { id name status resources accelerators }
    scale { factor changes { kind name before after } }
    otherChanges { kind name before after }
    metrics { name verdict why sharedSteps { start end }
      pilot { final { step value } trend { direction change slopePer1kSteps } }
      scaleUp { final { step value } trend { first { step value } last { step value }
        direction change } } }
  }
}"""


def _ask(driver: Driver, run: str) -> Any:
    return graphql_result(driver, QUERY, {"run": run})


def _scale_up(driver: Driver, run: str) -> dict[str, Any]:
    result = _ask(driver, run)
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["scaleUp"]
    return answer


def test_a_scale_up_that_changed_only_the_scale(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _scale_up(neo4j_driver, f"run:{p}-big-1")
    assert answer["pilot"] == {
        "id": f"run:{p}-pilot-1",
        "name": "pilot-1",
        "experiment": f"experiment:{p}/scale",
        "status": "completed",
        "resources": {"num_nodes": 1, **H100, "parallelism.data": 8},
        "accelerators": 8,
    }
    assert answer["scaleUp"]["accelerators"] == 64
    assert answer["scale"] == {
        "factor": 8.0,
        "changes": [
            {"kind": "RESOURCES", "name": "num_nodes", "before": 1, "after": 8},
            {"kind": "RESOURCES", "name": "parallelism.data", "before": 8, "after": 64},
        ],
    }
    assert (answer["otherChanges"], answer["flagged"], answer["flag"]) == ([], False, None)
    by_name = {m["name"]: m for m in answer["metrics"]}
    assert list(by_name) == ["train/loss", "val/loss"]  # acc: the pilot's alone
    val = by_name["val/loss"]
    assert (val["verdict"], val["sharedSteps"]) == ("held", {"start": 100, "end": 400})
    assert val["pilot"]["final"] == {"step": 400, "value": 1.7}
    assert val["scaleUp"]["final"] == {"step": 1600, "value": 1.2}
    assert val["scaleUp"]["trend"]["last"] == {"step": 400, "value": 1.6}
    assert (val["pilot"]["trend"]["change"], val["scaleUp"]["trend"]["change"]) == (-0.7, -0.7)
    assert val["pilot"]["trend"]["slopePer1kSteps"] == pytest.approx(-0.7 * 1000 / 300, 1e-5)
    train = by_name["train/loss"]
    assert (train["verdict"], train["why"]) == (
        "weaker",
        "both went down; worse at the end (lower is better)",
    )
    assert answer["trendHeld"] == "not held"


def test_a_scale_up_that_changed_more_is_flagged(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _scale_up(neo4j_driver, f"run:{p}-big-2")
    assert answer["scale"]["factor"] == 4.0
    assert answer["scale"]["changes"] == [
        {"kind": "RESOURCES", "name": "num_nodes", "before": 1, "after": 4},
        {"kind": "RESOURCES", "name": "parallelism.data", "before": 8, "after": None},
    ]
    assert answer["otherChanges"] == [
        {"kind": "PARAM", "name": "lr", "before": 3e-4, "after": 6e-4},
        {"kind": "INPUT", "name": f"train dataset:{p}/web",
         "before": f"dataset:{p}/web@v1", "after": f"dataset:{p}/web@v2"},
    ]  # fmt: skip
    assert answer["flagged"] is True
    assert answer["flag"] == "a scale-up should change only the scale: 2 other setting(s) differ"
    (val,) = answer["metrics"]
    assert (val["name"], val["verdict"]) == ("val/loss", "reversed")
    assert val["why"] == "the pilot went down, the scale-up up"
    assert answer["trendHeld"] == "not held"


def test_runs_that_are_no_scale_up_are_refused_by_name(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    cases = {
        f"run:{p}-lone": ("invalid_argument", f"run:{p}-lone is not a scale-up"),
        f"run:{p}-early": ("not_found", f"Not found: run:{p}-ghost, the pilot run:{p}-early"),
        f"run:{p}-none": ("not_found", f"Not found: run:{p}-none."),
        f"model:{p}/m@1": ("invalid_argument", "scale-up takes a run id, not a"),
    }
    for run, (code, message) in cases.items():
        result = _ask(neo4j_driver, run)
        assert result.errors is not None, run
        assert result.errors[0].extensions["code"] == code
        assert message in result.errors[0].message


def test_the_cli_text_and_json(neo4j_endpoint: Any, seeded: str) -> None:
    p = seeded
    done = provgraph_cli(neo4j_endpoint, "scale-up", f"run:{p}-big-1")
    assert done.returncode == 0, done.stderr
    shown = shown_output(ROOT, "docs/practices.md", "pilot   : run:p-pilot-1")
    assert text_mismatch(shown, done.stdout.replace(p, "p")) is None, done.stdout
    as_json = provgraph_cli(neo4j_endpoint, "scale-up", f"run:{p}-big-2", "--json")
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert (answer["run"], answer["flagged"], answer["trend_held"]) == (
        f"run:{p}-big-2",
        True,
        "not held",
    )
    assert [c["name"] for c in answer["other_changes"]] == ["lr", f"train dataset:{p}/web"]
    lone = provgraph_cli(neo4j_endpoint, "scale-up", f"run:{p}-lone")
    assert lone.returncode == 2 and f"run:{p}-lone is not a scale-up" in lone.stderr
    assert provgraph_cli(neo4j_endpoint, "scale-up", f"run:{p}-early").returncode == 1
