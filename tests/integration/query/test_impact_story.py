"""`impact` with each model version's evaluation results, on a seeded story in Neo4j, through
GraphQL and `provgraph impact`.

The story (project p, from 2026-03-01 00:00; the expected answers below are written from it):

  web@v1 is trained on by run a (registers chat@1.0.0) and run b (registers chat@2.0.0, and
  old@0.1.0, retired: not live, so not in the answer). Deployment api serves chat@1.0.0.
  Evaluations, suite s:
    chat@1.0.0  on eval@v1 at 05:00: acc 0.6 and loss 1.2, passed
                on eval@v1 + eval@v2 (one evaluation, suite version 2) at 04:00: acc 0.5,
                failed
    chat@2.0.0  at 06:00 with no metric, passed (a row without metric)
  so chat@1.0.0 has three rows, oldest first (04:00 acc; 05:00 acc, loss), chat@2.0.0 one,
  the deployment none.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_result, provgraph_cli, seed_story

T0 = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)
Step = tuple[str, dict[str, Any], float]


def _evaluated(p: str, n: int, model: str, data: list[str], metrics: dict[str, Any],
               passed: bool, **extra: Any) -> dict[str, Any]:  # fmt: skip
    return {
        "evaluation_id": str(uuid.UUID(int=n)),
        "model_version": f"model:{p}/{model}",
        "suite": "s",
        "dataset_versions": [f"dataset:{p}/{d}" for d in data],
        "metrics": metrics,
        "passed": passed,
        **extra,
    }


def _data(name: str, version: str) -> Step:
    created = {"name": name, "version": version, "storage_uri": f"s3://{name}/{version}/"}
    return ("dataset.version.created", created, 0)


def story(p: str) -> list[Step]:
    web = f"dataset:{p}/web@v1"
    used = {"inputs": [{"dataset_version": web, "role": "train"}]}
    return [
        _data("web", "v1"),
        _data("eval", "v1"),
        _data("eval", "v2"),
        ("run.started", {"run_id": f"{p}-a", **used}, 1),
        ("run.completed", {"run_id": f"{p}-a"}, 2),
        ("model.version.registered",
         {"name": "chat", "version": "1.0.0", "produced_by_run": f"run:{p}-a"}, 2),
        ("run.started", {"run_id": f"{p}-b", **used}, 1),
        ("run.completed", {"run_id": f"{p}-b"}, 3),
        ("model.version.registered",
         {"name": "chat", "version": "2.0.0", "produced_by_run": f"run:{p}-b"}, 3),
        ("model.version.registered",
         {"name": "old", "version": "0.1.0", "produced_by_run": f"run:{p}-b"}, 3),
        ("model.version.status.changed",
         {"model_version": f"model:{p}/old@0.1.0", "from_status": "candidate",
          "to_status": "retired", "reason": "superseded"}, 3.5),
        ("deployment.created",
         {"name": "api", "endpoint": "https://api.example/", "environment": "production",
          "serves": [{"model_version": f"model:{p}/chat@1.0.0"}]}, 3.5),
        ("model.version.evaluated",
         _evaluated(p, 1, "chat@1.0.0", ["eval@v1"], {"loss": 1.2, "acc": 0.6}, True), 5),
        ("model.version.evaluated",
         _evaluated(p, 2, "chat@1.0.0", ["eval@v2", "eval@v1"], {"acc": 0.5}, False,
                    suite_version="2"), 4),
        ("model.version.evaluated", _evaluated(p, 3, "chat@2.0.0", [], {}, True), 6),
    ]  # fmt: skip


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    seed_story(neo4j_driver, project, story(project), T0)
    return project


QUERY = """query($id: ID!) {
  impact(id: $id) {
    node { id type }
    evaluationResults { evaluation suite suiteVersion datasets metric value passed evaluatedAt }
  }
}"""


def _at(hour: int) -> str:
    return (T0 + timedelta(hours=hour)).strftime("%Y-%m-%dT%H:%M:%S")


def test_each_model_version_with_its_evaluation_results(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    result = graphql_result(neo4j_driver, QUERY, {"id": f"dataset:{p}/web@v1"})
    assert result.errors is None, result.errors
    items = {i["node"]["id"]: i["evaluationResults"] for i in result.data["impact"]}
    # Live only: the retired old@0.1.0 is left out.
    assert set(items) == {f"model:{p}/chat@1.0.0", f"model:{p}/chat@2.0.0", f"deployment:{p}/api"}
    assert items[f"deployment:{p}/api"] == []
    chat1 = items[f"model:{p}/chat@1.0.0"]
    rows = [(r["metric"], r["value"], r["passed"], r["suiteVersion"], r["datasets"]) for r in chat1]
    both = [f"dataset:{p}/eval@v1", f"dataset:{p}/eval@v2"]
    assert rows == [
        ("acc", 0.5, False, "2", both),
        ("acc", 0.6, True, None, [f"dataset:{p}/eval@v1"]),
        ("loss", 1.2, True, None, [f"dataset:{p}/eval@v1"]),
    ]
    assert [r["evaluatedAt"][:19] for r in chat1] == [_at(4), _at(5), _at(5)]
    assert {r["suite"] for r in chat1} == {"s"}
    assert chat1[1]["evaluation"] == chat1[2]["evaluation"] != chat1[0]["evaluation"]
    [bare] = items[f"model:{p}/chat@2.0.0"]
    assert (bare["metric"], bare["value"], bare["passed"], bare["datasets"]) == (
        None,
        None,
        True,
        [],
    )


def test_the_same_answer_from_the_command_line(
    neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str
) -> None:
    p = seeded
    web = f"dataset:{p}/web@v1"
    as_json = provgraph_cli(neo4j_endpoint, "impact", web, "--json")
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    found = graphql_result(neo4j_driver, QUERY, {"id": web}).data["impact"]
    by_id = {i["id"]: i for i in answer["items"]}
    for item in found:  # the CLI's rows are GraphQL's, in snake_case
        mine = by_id[item["node"]["id"]]
        assert [(r["evaluation"], r["metric"], r["value"], r["suite_version"], r["datasets"])
                for r in mine["evaluations"]] == [
            (r["evaluation"], r["metric"], r["value"], r["suiteVersion"], r["datasets"])
            for r in item["evaluationResults"]
        ]  # fmt: skip
    assert by_id[f"deployment:{p}/api"]["path"] == [web, f"run:{p}-a", f"model:{p}/chat@1.0.0",
                                                    f"deployment:{p}/api"]  # fmt: skip

    text = provgraph_cli(neo4j_endpoint, "impact", web)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"downstream of {web}: 3 live"
    chat1 = lines.index(f"ModelVersion model:{p}/chat@1.0.0 (candidate)")
    assert lines[chat1 + 2] == "  evaluations:"
    shown = [line.split(" (20")[0] for line in lines[chat1 + 3 : chat1 + 6]]
    assert shown == [
        f"    s 2 on dataset:{p}/eval@v1, dataset:{p}/eval@v2: acc = 0.5, failed",
        f"    s on dataset:{p}/eval@v1: acc = 0.6, passed",
        f"    s on dataset:{p}/eval@v1: loss = 1.2, passed",
    ]
    chat2 = lines.index(f"ModelVersion model:{p}/chat@2.0.0 (candidate)")
    assert lines[chat2 + 3].startswith("    s on no dataset: no metric, passed (")
    assert provgraph_cli(neo4j_endpoint, "impact", f"dataset:{p}/none@v1").returncode == 1
    malformed = provgraph_cli(neo4j_endpoint, "impact", "web@v1")
    assert malformed.returncode == 2 and "invalid_id" in malformed.stderr
