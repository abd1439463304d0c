"""`search` (lessons) on a seeded story in Neo4j and its full-text index, through GraphQL and
through `provgraph search`.

The story (project p; expected answers below are written from it by hand):

  experiment sweep    goal "find why the loss diverges at large batch sizes"
  #1 failed           error OutOfMemoryError "CUDA out of memory at batch 256",
                      conclusion "batch 256 does not fit on 8 GPUs"; lr 1e-4, trains on web@v1
  #2 completed        conclusion "warmup of 2000 steps stopped the divergence"; lr 2e-5,
                      trains on web@v2, final val/loss 1.4
  #3 completed        conclusion "lr 1e-4 diverges after step 900"; lr 1e-4, trains on web@v1,
                      final val/loss 2.3
  #4 aborted          reason "preempted by a higher priority job"
  web@v2              change note "dropped near-duplicate shards that made the loss diverge"
  chat@1.0.0          made by #2, description "trained with warmup: the loss no longer diverges"
  chat-api            serves chat@1.0.0; feedback with the incident "latency spike after the
                      deploy"

The index stems English words (diverges, divergence and diverge are one) and leaves stop words
out. Which of several fields ranks first depends on the whole index (other tests share it), so
answers that mix fields are compared as sets; hits of one field keep their order.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import shown_output, text_mismatch
from support.stories import graphql_result, provgraph_cli, story_event

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]


def _run(p: str, n: int, lr: float, train: str) -> tuple[str, dict[str, Any]]:
    return (
        "run.started",
        {
            "run_id": f"{p}-{n}",
            "experiment": f"experiment:{p}/sweep",
            "run_number": n,
            "params": {"lr": lr},
            "inputs": [{"dataset_version": f"dataset:{p}/{train}", "role": "train"}],
        },
    )


def story(p: str) -> list[tuple[str, dict[str, Any]]]:
    goal = "find why the loss diverges at large batch sizes"
    note = "dropped near-duplicate shards that made the loss diverge"
    oom = {"type": "OutOfMemoryError", "message": "CUDA out of memory at batch 256"}
    return [
        ("experiment.created", {"key": "sweep", "number": 1, "goal": goal}),
        ("dataset.version.created", {"name": "web", "version": "v1", "storage_uri": "s3://w/1/"}),
        (
            "dataset.version.created",
            {"name": "web", "version": "v2", "storage_uri": "s3://w/2/", "change_note": note},
        ),
        _run(p, 1, 1e-4, "web@v1"),
        (
            "run.failed",
            {"run_id": f"{p}-1", "error": oom, "conclusion": "batch 256 does not fit on 8 GPUs"},
        ),
        _run(p, 2, 2e-5, "web@v2"),
        (
            "run.completed",
            {
                "run_id": f"{p}-2",
                "conclusion": "warmup of 2000 steps stopped the divergence",
                "final_metrics": {"val/loss": 1.4},
            },
        ),
        _run(p, 3, 1e-4, "web@v1"),
        (
            "run.completed",
            {
                "run_id": f"{p}-3",
                "conclusion": "lr 1e-4 diverges after step 900",
                "final_metrics": {"val/loss": 2.3},
            },
        ),
        _run(p, 4, 1e-4, "web@v1"),
        ("run.aborted", {"run_id": f"{p}-4", "reason": "preempted by a higher priority job"}),
        (
            "model.version.registered",
            {
                "name": "chat",
                "version": "1.0.0",
                "produced_by_run": f"run:{p}-2",
                "description": "trained with warmup: the loss no longer diverges",
            },
        ),
        (
            "deployment.created",
            {
                "name": "chat-api",
                "endpoint": "https://chat.example.org/v1",
                "environment": "production",
                "serves": [{"model_version": f"model:{p}/chat@1.0.0", "traffic_share": 1.0}],
            },
        ),
        (
            "deployment.feedback.recorded",
            {
                "name": "chat-api",
                "model_version": f"model:{p}/chat@1.0.0",
                "incidents": [{"summary": "latency spike after the deploy", "severity": "high"}],
            },
        ),
    ]


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    events = [
        story_event(project, t, payload, T0 + timedelta(minutes=i))
        for i, (t, payload) in enumerate(story(project))
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


QUERY = """query($t: String!, $p: String, $k: [LessonKind!], $s: String, $m: String,
    $param: String, $u: ID, $first: Int! = 20) {
  lessons(text: $t, project: $p, kinds: $k, status: $s, metric: $m, param: $param, uses: $u,
      first: $first) {
    text query truncated candidates
    hits { id type project name status experiment score matches { field text } }
  }
}"""


def _ask(driver: Driver, **variables: Any) -> Any:
    return graphql_result(driver, QUERY, variables)


def _lessons(driver: Driver, **variables: Any) -> dict[str, Any]:
    result = _ask(driver, **variables)
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["lessons"]
    return answer


def _ids(answer: dict[str, Any]) -> list[str]:
    return [h["id"] for h in answer["hits"]]


def test_a_word_in_every_form_and_field(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _lessons(neo4j_driver, t="diverge", p=p)
    assert answer["query"] == "diverge" and answer["truncated"] is False
    assert sorted(_ids(answer)) == sorted(
        [
            f"dataset:{p}/web@v2",
            f"experiment:{p}/sweep",
            f"model:{p}/chat@1.0.0",
            f"run:{p}-2",
            f"run:{p}-3",
        ]
    )
    by_id = {h["id"]: h for h in answer["hits"]}
    assert by_id[f"run:{p}-2"]["matches"] == [
        {"field": "conclusion", "text": "warmup of 2000 steps stopped the divergence"}
    ]
    assert by_id[f"run:{p}-3"]["experiment"] == f"experiment:{p}/sweep"
    assert by_id[f"run:{p}-3"]["status"] == "completed"
    assert by_id[f"dataset:{p}/web@v2"]["matches"] == [
        {"field": "change_note", "text": "dropped near-duplicate shards that made the loss diverge"}
    ]
    assert by_id[f"experiment:{p}/sweep"]["matches"][0]["field"] == "goal"
    scores = [h["score"] for h in answer["hits"]]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_errors_reasons_and_incidents(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    oom = _lessons(neo4j_driver, t="memory", p=p)
    assert _ids(oom) == [f"run:{p}-1"]
    assert oom["hits"][0]["matches"] == [
        {"field": "error_message", "text": "CUDA out of memory at batch 256"}
    ]
    preempted = _lessons(neo4j_driver, t="preempted", p=p)
    assert [(h["id"], h["status"]) for h in preempted["hits"]] == [(f"run:{p}-4", "aborted")]
    assert preempted["hits"][0]["matches"][0]["field"] == "abort_reason"
    latency = _lessons(neo4j_driver, t="latency", p=p)
    assert [(h["id"], h["type"], h["matches"]) for h in latency["hits"]] == [
        (
            f"deployment:{p}/chat-api",
            "Deployment",
            [{"field": "incidents", "text": "latency spike after the deploy"}],
        )
    ]
    # stop words are never searched for: "the" alone finds nothing
    assert _lessons(neo4j_driver, t="the of", p=p)["hits"] == []


def test_filters(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    words = "diverge memory"

    def found(**filters: Any) -> list[str]:
        return sorted(_ids(_lessons(neo4j_driver, t=words, p=p, **filters)))

    runs = [f"run:{p}-1", f"run:{p}-2", f"run:{p}-3"]
    assert found(k=["RUN"]) == runs
    assert found(k=["DATASET", "EXPERIMENT"]) == [f"dataset:{p}/web@v2", f"experiment:{p}/sweep"]
    assert found(s="failed") == [f"run:{p}-1"]
    assert found(m="final:val/loss<2") == [f"run:{p}-2"]
    assert found(m="val/loss>=1.4") == [f"run:{p}-2", f"run:{p}-3"]
    assert found(param="lr=1e-4") == [f"run:{p}-1", f"run:{p}-3"]
    assert found(u=f"dataset:{p}/web@v2") == [f"model:{p}/chat@1.0.0", f"run:{p}-2"]
    assert _ids(_lessons(neo4j_driver, t=words, p="someone-else")) == []


def test_first_and_invalid_arguments(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    two = _lessons(neo4j_driver, t="diverge", p=p, first=2)
    assert len(two["hits"]) == 2 and two["truncated"] is True  # five match
    for bad, message in (
        ({"m": "val/loss"}, "is not a condition such as final:val/loss<1.5"),
        ({"param": "lr"}, "is not NAME=VALUE"),
        ({"u": f"dataset:{p}/web"}, "dataset version id"),
        ({"first": 0}, "first must be 1..500"),
    ):
        result = _ask(neo4j_driver, t="diverge", p=p, **bad)
        assert result.errors is not None, bad
        assert result.errors[0].extensions["code"] == "invalid_argument"
        assert message in result.errors[0].message


def test_cli(neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    done = provgraph_cli(neo4j_endpoint, "search", "diverge", "--project", p, "--kind", "run")
    assert done.returncode == 0, done.stderr
    shown = shown_output(ROOT, "docs/practices.md", "search 'diverge' (project p, kinds run)")
    assert text_mismatch(shown, done.stdout.replace(p, "p")) is None, done.stdout
    as_json = provgraph_cli(
        neo4j_endpoint, "search", "out", "of", "memory", "--project", p, "--status", "failed",
        "--json",
    )  # fmt: skip
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert answer["text"] == "out of memory" and _ids(answer) == [f"run:{p}-1"]
    assert answer["filters"]["status"] == "failed"
    nothing = provgraph_cli(neo4j_endpoint, "search", "quasar", "--project", p)
    assert nothing.returncode == 1 and "no hit" in nothing.stdout
    bad = provgraph_cli(neo4j_endpoint, "search", "x", "--metric", "loss")
    assert bad.returncode == 2 and "not a condition" in bad.stderr
