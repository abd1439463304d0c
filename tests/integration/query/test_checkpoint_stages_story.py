"""`checkpoints RUN` on a seeded story in Neo4j, through GraphQL (`checkpointStages`) and
through `provgraph checkpoints` (text and JSON).

The story (project p, from 2026-04-01 00:00; the expected answers below are written from it):

  run pre saves checkpoints at steps 1000 (01:00, train/loss 2.5), 2000 (02:00, loss 2.0) and
  3000 (03:00, loss 1.8). None is registered as a model version when it is evaluated:
    1000 on eval@v1 (suite s 1):    acc 0.40, failed  (04:00)
    2000 on heldout@v1 (suite s 1): acc 0.90, passed  (05:00)  another evaluation set
    3000 on eval@v1:                acc 0.55, passed  (06:00)  +0.15 since step 1000
    3000 on heldout@v1:             acc 0.85, passed  (07:00)  -0.05 since step 2000
  Later chat@1.0.0 is registered from checkpoint 3000 (08:00): it has no evaluation of its own.

  run long saves 20 checkpoints (steps 100 .. 2000); read with a bound of 4, the answer keeps
  steps 1700 .. 2000 and says 4 of 20.

  The project declares `accuracy` an alias of `acc`; run alias's checkpoint 100 scored acc 0.30
  on eval@v1, its checkpoint 200 accuracy 0.36 there: read as acc, +0.06 since step 100.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_result, provgraph_cli, seed_story

from provgraph.query.settings import QuerySettings

T0 = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
Step = tuple[str, dict[str, Any], float]
BOUND = 4


def _saved(p: str, run: str, step: int, hour: float, **metrics: float) -> Step:
    payload = {"run_id": f"{p}-{run}", "step": step, "uri": f"s3://c/{run}/{step}"}
    return ("checkpoint.saved", {**payload, "metrics": metrics}, hour)


def _evaluated(
    p: str,
    n: int,
    step: int,
    data: str,
    acc: float,
    passed: bool,
    run: str = "pre",
    name: str = "acc",
) -> Step:
    payload = {
        "evaluation_id": str(uuid.UUID(int=n)),
        "checkpoint": f"checkpoint:{p}-{run}/{step}",
        "suite": "s",
        "suite_version": "1",
        "dataset_versions": [f"dataset:{p}/{data}"],
        "metrics": {name: acc},
        "passed": passed,
    }
    return ("checkpoint.evaluated", payload, 3 + n)


def story(p: str) -> list[Step]:
    return [
        ("run.started", {"run_id": f"{p}-pre"}, 0),
        ("dataset.version.created", {"name": "eval", "version": "v1", "storage_uri": "s3://e/"}, 0),
        ("dataset.version.created", {"name": "heldout", "version": "v1", "storage_uri": "s3://h/"},
         0),
        _saved(p, "pre", 1000, 1, **{"train/loss": 2.5}),
        _saved(p, "pre", 2000, 2, **{"train/loss": 2.0}),
        _saved(p, "pre", 3000, 3, **{"train/loss": 1.8}),
        _evaluated(p, 1, 1000, "eval@v1", 0.40, False),
        _evaluated(p, 2, 2000, "heldout@v1", 0.90, True),
        _evaluated(p, 3, 3000, "eval@v1", 0.55, True),
        _evaluated(p, 4, 3000, "heldout@v1", 0.85, True),
        ("model.version.registered",
         {"name": "chat", "version": "1.0.0", "checkpoint": f"checkpoint:{p}-pre/3000"}, 8),
        ("run.started", {"run_id": f"{p}-long"}, 0),
        *(_saved(p, "long", 100 * n, 1 + n / 100) for n in range(1, 21)),
        ("project.policy.set", {"metric_aliases": {"accuracy": "acc"}}, 0),
        ("run.started", {"run_id": f"{p}-alias"}, 0),
        _saved(p, "alias", 100, 1),
        _saved(p, "alias", 200, 2),
        _evaluated(p, 5, 100, "eval@v1", 0.30, True, "alias"),
        _evaluated(p, 6, 200, "eval@v1", 0.36, True, "alias", "accuracy"),
    ]  # fmt: skip


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    seed_story(neo4j_driver, project, story(project), T0)
    return project


QUERY = """query($run: ID!, $metric: String) {
  checkpointStages(run: $run, metric: $metric) {
    run metric total limit truncated
    checkpoints { id step savedAt status metrics { name value } evaluations }
    results { checkpoint step evaluation suite suiteVersion evaluationSet passed evaluatedAt
      metric value previousCheckpoint previousStep previousValue change }
  }
}"""


def _ask(driver: Driver, settings: QuerySettings | None = None, **variables: Any) -> Any:
    return graphql_result(driver, QUERY, variables, settings)


def _stages(driver: Driver, **variables: Any) -> dict[str, Any]:
    result = _ask(driver, **variables)
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["checkpointStages"]
    return answer


def _table(answer: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (r["step"], r["evaluationSet"], r["passed"], r["metric"], r["value"], r["previousStep"],
         None if r["change"] is None else round(r["change"], 6))
        for r in answer["results"]
    ]  # fmt: skip


def test_the_runs_checkpoints_stage_by_stage(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _stages(neo4j_driver, run=f"run:{p}-pre")
    assert (answer["run"], answer["total"], answer["truncated"]) == (f"run:{p}-pre", 3, False)
    stages = [(c["id"], c["step"], c["savedAt"], c["metrics"]) for c in answer["checkpoints"]]
    assert stages == [
        (f"checkpoint:{p}-pre/{step}", step, f"2026-04-01T0{hour}:00:00.000000Z",
         [{"name": "train/loss", "value": loss}])
        for step, hour, loss in ((1000, 1, 2.5), (2000, 2, 2.0), (3000, 3, 1.8))
    ]  # fmt: skip
    eval_v1, heldout = [f"dataset:{p}/eval@v1"], [f"dataset:{p}/heldout@v1"]
    assert _table(answer) == [
        (1000, eval_v1, False, "acc", 0.40, None, None),
        (2000, heldout, True, "acc", 0.90, None, None),  # another set: not compared with 0.40
        (3000, eval_v1, True, "acc", 0.55, 1000, 0.15),
        (3000, heldout, True, "acc", 0.85, 2000, -0.05),
    ]
    assert [c["evaluations"] for c in answer["checkpoints"]] == [1, 1, 2]
    first = answer["results"][0]
    assert (first["evaluation"], first["suite"], first["suiteVersion"], first["evaluatedAt"]) == (
        f"evaluation:{uuid.UUID(int=1)}",
        "s",
        "1",
        "2026-04-01T04:00:00.000000Z",
    )


def test_metric_keeps_one_and_an_unknown_one_is_refused(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _stages(neo4j_driver, run=f"run:{p}-pre", metric="train/loss")
    assert answer["metric"] == "train/loss"
    assert answer["results"] == []
    assert [c["metrics"][0]["value"] for c in answer["checkpoints"]] == [2.5, 2.0, 1.8]
    result = _ask(neo4j_driver, run=f"run:{p}-pre", metric="bleu")
    assert result.errors is not None
    assert result.errors[0].extensions["code"] == "invalid_argument"
    assert "recorded: acc, train/loss" in result.errors[0].message


def test_checkpoint_evaluations_are_no_evaluations_of_the_model_version(
    neo4j_driver: Driver, seeded: str
) -> None:
    p = seeded
    query = """query($id: ID!) { node(id: $id) { ... on ModelVersion { evaluations { id } }
      ... on Evaluation { modelVersion { id } } } }"""
    version = graphql_result(neo4j_driver, query, {"id": f"model:{p}/chat@1.0.0"})
    assert version.errors is None and version.data["node"] == {"evaluations": []}
    evaluation = graphql_result(neo4j_driver, query, {"id": f"evaluation:{uuid.UUID(int=3)}"})
    assert evaluation.errors is None and evaluation.data["node"] == {"modelVersion": None}


def test_a_metric_under_a_declared_alias_is_compared_under_its_canonical_name(
    neo4j_driver: Driver, seeded: str
) -> None:
    p = seeded
    for asked in (None, "acc", "accuracy"):
        answer = _stages(neo4j_driver, run=f"run:{p}-alias", metric=asked)
        assert answer["metric"] == (None if asked is None else "acc")
        assert _table(answer) == [
            (100, [f"dataset:{p}/eval@v1"], True, "acc", 0.30, None, None),
            (200, [f"dataset:{p}/eval@v1"], True, "acc", 0.36, 100, 0.06),
        ]


def test_the_bound_on_a_run_five_times_larger(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    result = _ask(neo4j_driver, QuerySettings(checkpoint_stages_max=BOUND), run=f"run:{p}-long")
    assert result.errors is None, result.errors
    answer = result.data["checkpointStages"]
    assert (answer["total"], answer["limit"], answer["truncated"]) == (20, BOUND, True)
    assert [c["step"] for c in answer["checkpoints"]] == [1700, 1800, 1900, 2000]


def test_errors(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    for bad, code in (
        (f"run:{p}-none", "not_found"),
        (f"checkpoint:{p}-pre/1000", "invalid_argument"),
        ("pre", "invalid_id"),
    ):
        result = _ask(neo4j_driver, run=bad)
        assert result.errors is not None and result.errors[0].extensions["code"] == code, bad


def test_the_cli_answers_as_graphql(
    neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = seeded
    done = provgraph_cli(neo4j_endpoint, "checkpoints", f"run:{p}-pre", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    last = [r for r in answer["results"] if r["step"] == 3000]
    assert [(r["evaluation_set"], r["change"]) for r in last] == [
        ([f"dataset:{p}/eval@v1"], pytest.approx(0.15)),
        ([f"dataset:{p}/heldout@v1"], pytest.approx(-0.05)),
    ]
    text = provgraph_cli(neo4j_endpoint, "checkpoints", f"run:{p}-pre").stdout
    assert text.splitlines()[0] == f"run:{p}-pre: 3 checkpoints, in step order"
    assert "0.55 (+0.15 since step 1000)" in text and "0.85 (-0.05 since step 2000)" in text
    monkeypatch.setenv("PROVGRAPH_CHECKPOINT_STAGES_MAX", str(BOUND))
    bounded = provgraph_cli(neo4j_endpoint, "checkpoints", f"run:{p}-long")
    assert bounded.stdout.splitlines()[0] == f"run:{p}-long: 4 of 20 checkpoints, in step order"
    missing = provgraph_cli(neo4j_endpoint, "checkpoints", f"run:{p}-none", "--json")
    assert missing.returncode == 1 and "not_found" in missing.stderr
