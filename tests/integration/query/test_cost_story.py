"""`cost` on a seeded story in Neo4j, through GraphQL and through `provgraph cost`.

The story (project p, from 2026-03-01 00:00; expected answers below are written from it by hand):

  experiment pre    pre-1   2 nodes x 8 devices, 00:00 - 10:00 completed: 10 h, 160 acc-h;
                            registered as base@1.0.0
  experiment sft    sft-1   1 x 8, from base@1.0.0, 20:00 - 21:00 failed (out of memory);
                            checkpoint at 20:30 (2 GB): 1 h, 8 acc-h, 0.5 h lost (4 acc-h)
                    sft-2   1 x 8, from base@1.0.0, 22:00 - 24:00 completed; checkpoint at 23:00
                            (1 GB): 2 h, 16 acc-h; registered as chat@1.0.0
                    sft-3   no resources recorded, from base@1.0.0, 30:00 - 31:00 aborted: 1 h,
                            all of it lost (no checkpoint)

  chat@1.0.0: sft-2 (16) and the failed attempt before it ended, sft-1 (8): 24 acc-h, 3 h; 4
  acc-h lost; 3 GB of checkpoints. With its base: base@1.0.0 cost 160 acc-h (10 h) and three
  runs started from it: a third, 53.3333 acc-h (3.3333 h), so 77.3333 acc-h (6.3333 h).
  experiment sft: sft-2 completed (16), sft-1 and sft-3 failed attempts (8, and 1 h without
  resources): 24 acc-h, 4 h; 1.5 h lost, 4 acc-h of it with recorded resources.

  Evaluations (suite s): chat@0.9.0 (registered at 12:00) acc 0.5 on eval@v1; chat@1.0.0 acc
  0.6 on eval@v1 and 0.7 on eval@v2. On eval@v1, higher being better, chat@1.0.0 gained 0.1
  (10 points) over chat@0.9.0: 2.4 acc-h a point (7.7333 with the base's share).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import shown_output, text_mismatch
from support.stories import graphql_result, provgraph_cli, story_event

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

T0 = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]
OOM = {"type": "OutOfMemoryError", "message": "CUDA out of memory"}
Step = tuple[str, dict[str, Any], float]


def _start(p: str, key: str, experiment: str, hour: float, **extra: Any) -> Step:
    payload = {"run_id": f"{p}-{key}", "experiment": f"experiment:{p}/{experiment}", **extra}
    return ("run.started", payload, hour)


def _saved(p: str, key: str, step: int, hour: float, size: int) -> Step:
    payload = {"run_id": f"{p}-{key}", "step": step, "uri": f"s3://c/{key}/{step}",
               "size_bytes": size}  # fmt: skip
    return ("checkpoint.saved", payload, hour)


def story(p: str) -> list[Step]:
    base = f"model:{p}/base@1.0.0"
    one = {"num_nodes": 1, "devices_per_node": 8}
    return [
        ("experiment.created", {"key": "pre", "number": 1, "goal": "pretrain"}, 0),
        ("experiment.created", {"key": "sft", "number": 2, "goal": "fine-tune"}, 0),
        _start(p, "pre-1", "pre", 0, resources={"num_nodes": 2, "devices_per_node": 8}),
        ("run.completed", {"run_id": f"{p}-pre-1"}, 10),
        ("model.version.registered",
         {"name": "base", "version": "1.0.0", "produced_by_run": f"run:{p}-pre-1"}, 10),
        _start(p, "sft-1", "sft", 20, resources=one, base_model=base),
        _saved(p, "sft-1", 100, 20.5, 2_000_000_000),
        ("run.failed", {"run_id": f"{p}-sft-1", "error": OOM}, 21),
        _start(p, "sft-2", "sft", 22, resources=one, base_model=base),
        _saved(p, "sft-2", 200, 23, 1_000_000_000),
        ("run.completed", {"run_id": f"{p}-sft-2"}, 24),
        ("model.version.registered",
         {"name": "chat", "version": "1.0.0", "produced_by_run": f"run:{p}-sft-2"}, 24),
        _start(p, "sft-3", "sft", 30, base_model=base),
        ("run.aborted", {"run_id": f"{p}-sft-3", "reason": "preempted"}, 31),
        *_evaluations(p),
    ]  # fmt: skip


def _evaluations(p: str) -> list[Step]:
    """chat@0.9.0 (made by pre-1, registered at 12:00) scores acc 0.5 on eval@v1; chat@1.0.0
    0.6 there and 0.7 on eval@v2 (another evaluation set)."""
    out: list[Step] = [
        ("model.version.registered",
         {"name": "chat", "version": "0.9.0", "produced_by_run": f"run:{p}-pre-1"}, 12),
    ]  # fmt: skip
    for version in ("v1", "v2"):
        created = {"name": "eval", "version": version, "storage_uri": f"s3://e/{version}/"}
        out.append(("dataset.version.created", created, 1))
    for n, (model, data, acc) in enumerate(
        [("chat@0.9.0", "v1", 0.5), ("chat@1.0.0", "v1", 0.6), ("chat@1.0.0", "v2", 0.7)]
    ):
        evaluated = {
            "evaluation_id": str(uuid.UUID(int=n + 1)),
            "model_version": f"model:{p}/{model}",
            "suite": "s",
            "dataset_versions": [f"dataset:{p}/eval@{data}"],
            "metrics": {"acc": acc},
            "passed": True,
        }
        out.append(("model.version.evaluated", evaluated, 25 + n))
    return out


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    events = [
        story_event(project, t, payload, T0 + timedelta(hours=hour))
        for t, payload, hour in story(project)
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


QUERY = """query($id: ID!, $base: Boolean!, $metric: String, $datasets: [ID!],
    $higher: Boolean! = false) {
  cost(id: $id, includeBase: $base, metric: $metric, datasets: $datasets,
      higherIsBetter: $higher) {
    gain { metric value gain acceleratorHoursPerPoint message
      evaluationSet { datasets suite } previousBest { version value } }
    target kind run experiment truncated
    runs { id status role hours accelerators acceleratorHours interruptions lostHours
      lostAcceleratorHours checkpointBytes }
    totals { hours acceleratorHours lostHours lostAcceleratorHours checkpointBytes
      runsWithoutResources byRole { role runs hours acceleratorHours } }
    base { modelVersion run hours acceleratorHours users share shareAcceleratorHours
      runsWithoutResources }
    withBase { hours acceleratorHours }
  }
}"""


def _ask(driver: Driver, **variables: Any) -> Any:
    return graphql_result(driver, QUERY, {"base": False, **variables})


def _cost(driver: Driver, **variables: Any) -> dict[str, Any]:
    result = _ask(driver, **variables)
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["cost"]
    return answer


def _rows(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (r["id"], r["role"], r["hours"], r["acceleratorHours"], r["lostAcceleratorHours"],
         r["checkpointBytes"])
        for r in answer["runs"]
    ]  # fmt: skip


def test_a_model_versions_cost(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _cost(neo4j_driver, id=f"model:{p}/chat@1.0.0")
    assert (answer["kind"], answer["run"], answer["experiment"]) == (
        "model_version",
        f"run:{p}-sft-2",
        f"experiment:{p}/sft",
    )
    assert _rows(answer) == [
        (f"run:{p}-sft-2", "producing run", 2.0, 16.0, 0.0, 1_000_000_000),
        (f"run:{p}-sft-1", "failed attempt", 1.0, 8.0, 4.0, 2_000_000_000),
    ]
    totals = answer["totals"]
    assert (totals["hours"], totals["acceleratorHours"]) == (3.0, 24.0)
    assert (totals["lostHours"], totals["lostAcceleratorHours"]) == (0.5, 4.0)
    assert totals["checkpointBytes"] == 3_000_000_000 and totals["runsWithoutResources"] == []
    assert totals["byRole"] == [
        {"role": "producing run", "runs": 1, "hours": 2.0, "acceleratorHours": 16.0},
        {"role": "failed attempt", "runs": 1, "hours": 1.0, "acceleratorHours": 8.0},
    ]
    assert answer["base"] is None and answer["withBase"] is None


def test_with_the_base_models_share(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _cost(neo4j_driver, id=f"model:{p}/chat@1.0.0", base=True)
    assert answer["base"] == {
        "modelVersion": f"model:{p}/base@1.0.0",
        "run": f"run:{p}-pre-1",
        "hours": 10.0,
        "acceleratorHours": 160.0,
        "users": 3,
        "share": pytest.approx(1 / 3, abs=1e-6),
        "shareAcceleratorHours": pytest.approx(53.3333),
        "runsWithoutResources": [],
    }
    assert answer["withBase"] == {
        "hours": pytest.approx(6.3333),
        "acceleratorHours": pytest.approx(77.3333),
    }


def test_an_experiments_cost(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _cost(neo4j_driver, id=f"experiment:{p}/sft")
    assert sorted(_rows(answer)) == sorted(
        [
            (f"run:{p}-sft-1", "failed attempt", 1.0, 8.0, 4.0, 2_000_000_000),
            (f"run:{p}-sft-2", "completed", 2.0, 16.0, 0.0, 1_000_000_000),
            (f"run:{p}-sft-3", "failed attempt", 1.0, None, None, 0),
        ]
    )
    totals = answer["totals"]
    assert (totals["hours"], totals["acceleratorHours"], totals["lostHours"]) == (4.0, 24.0, 1.5)
    assert totals["lostAcceleratorHours"] == 4.0
    assert totals["runsWithoutResources"] == [f"run:{p}-sft-3"]
    by_role = {r["role"]: (r["runs"], r["acceleratorHours"]) for r in totals["byRole"]}
    assert by_role == {"completed": (1, 16.0), "failed attempt": (2, 8.0)}


def test_errors_and_cli(neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    for bad, code in (("run:x-1", "invalid_argument"), (f"model:{p}/none@1", "not_found")):
        result = _ask(neo4j_driver, id=bad)
        assert result.errors is not None and result.errors[0].extensions["code"] == code
    done = provgraph_cli(neo4j_endpoint, "cost", f"model:{p}/chat@1.0.0", "--include-base")
    assert done.returncode == 0, done.stderr
    shown = shown_output(ROOT, "docs/practices.md", "cost of model:p/chat@1.0.0")
    assert text_mismatch(shown, done.stdout.replace(p, "p")) is None, done.stdout
    as_json = provgraph_cli(neo4j_endpoint, "cost", f"experiment:{p}/sft", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["totals"]["accelerator_hours"] == 24.0
    gained = provgraph_cli(
        neo4j_endpoint, "cost", f"model:{p}/chat@1.0.0", "--metric", "acc",
        "--dataset", f"dataset:{p}/eval@v1", "--higher-is-better",
    )  # fmt: skip
    assert gained.returncode == 0, gained.stderr
    assert gained.stdout.splitlines()[-1] == (
        f"gain on acc (dataset:{p}/eval@v1 [s]): 0.6 against 0.5 (model:{p}/chat@0.9.0), "
        "10 points, 2.4 accelerator-hours a point"
    )
    assert provgraph_cli(neo4j_endpoint, "cost", f"experiment:{p}/none").returncode == 1
    assert provgraph_cli(neo4j_endpoint, "cost", f"dataset:{p}/web").returncode == 2


def test_the_accelerator_hours_per_point_gained(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    chat = f"model:{p}/chat@1.0.0"
    ambiguous = _cost(neo4j_driver, id=chat, metric="acc", higher=True)["gain"]
    assert ambiguous["gain"] is None and "several evaluation sets" in ambiguous["message"]
    v1 = [f"dataset:{p}/eval@v1"]
    found = _cost(neo4j_driver, id=chat, metric="acc", datasets=v1, higher=True)["gain"]
    assert found["evaluationSet"] == {"datasets": v1, "suite": "s"}
    assert found["previousBest"] == {"version": f"model:{p}/chat@0.9.0", "value": 0.5}
    assert found["value"] == 0.6 and found["gain"] == pytest.approx(0.1)
    assert found["acceleratorHoursPerPoint"] == pytest.approx(2.4)  # 24 acc-h over 10 points
    with_base = _cost(neo4j_driver, id=chat, base=True, metric="acc", datasets=v1, higher=True)
    assert with_base["gain"]["acceleratorHoursPerPoint"] == pytest.approx(7.7333)
    lower = _cost(neo4j_driver, id=chat, metric="acc", datasets=v1)["gain"]  # lower is better
    assert lower["gain"] == pytest.approx(-0.1) and lower["acceleratorHoursPerPoint"] is None
    assert lower["message"] == "no gain over the previous best"
    first = _cost(neo4j_driver, id=f"model:{p}/chat@0.9.0", metric="acc", datasets=v1)["gain"]
    assert first["previousBest"] is None and "first version" in first["message"]
    experiment = _ask(neo4j_driver, id=f"experiment:{p}/sft", metric="acc")
    assert experiment.errors is not None
    assert experiment.errors[0].extensions["code"] == "invalid_argument"
