"""`compare` on a seeded story in Neo4j, through GraphQL and through `provgraph compare --json`.

The story (experiment `sweep`; expected answers below are written from it by hand):

  #1 base        lr 3e-4, train web@v1, validation heldout@v1, env img-a, code aaa1111
                 logged train/loss 2.5 @100, val/loss 2.2 @100; completed, final val/loss 2.0
  #2 lower-lr    lr 1e-4                                            (one change: lr)
                 logged val/loss 2.0 @100 then 1.9 @200, train/loss 2.3 @200; final val/loss 1.8
  #3 v2-data     lr 1e-4, train web@v2, code bbb2222                (two changes: FLAGGED)
                 logged train/loss 2.1 @50; checkpoint at step 50; failed (OOM)
  #4 v2-resumed  as #3, started from #3's checkpoint (resumed-from is not a setting)
                 logged eval/loss 1.7 @300 (another split); completed without a conclusion,
                 final val/loss 1.6
  #5 torch-2.6   as #4 in env img-b (torch 2.6.0)                   (one change: environment)
                 logged val/loss 1.95 @40; aborted (preempted)
  Each run starts at minute 10·n and ends 6 minutes later. Every dataset version recorded
  quality gates that passed: no run is flagged for its data.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import shown_output, text_mismatch
from support.stories import provgraph_cli, story_event

from provgraph.core.errors import NotFoundError
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.compare_service import Comparisons
from provgraph.query.settings import QuerySettings
from provgraph.schemas import Event

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]
Step = tuple[str, dict[str, Any], int]


def _event(project: str, event_type: str, payload: dict[str, Any], minute: int) -> Event:
    return story_event(project, event_type, payload, T0 + timedelta(minutes=minute))


def _setup(p: str) -> list[Step]:
    image = {"name": "registry.example.org/trainer", "tag": "2026.03"}
    out: list[Step] = [
        ("experiment.created", {"key": "sweep", "number": 7, "goal": "find the lr"}, 0),
    ]
    for key, torch in (("img-a", "2.5.1"), ("img-b", "2.6.0")):
        env = {"key": key, "image": image, "packages": {"torch": torch}}
        out.append(("environment.snapshot.recorded", env, 0))
    gates = {"checks": [{"name": "dedup", "passed": True}]}  # what each run trains on passed
    for name, version in (("web", "v1"), ("web", "v2"), ("heldout", "v1")):
        uri = f"s3://bucket/{name}/{version}/"
        created = {"name": name, "version": version, "storage_uri": uri, "quality_gates": gates}
        out.append(("dataset.version.created", created, 0))
    return out


def _start(p: str, n: int, name: str, lr: float, train: str, commit: str, env: str) -> Step:
    payload: dict[str, Any] = {
        "run_id": f"{p}-{n}",
        "experiment": f"experiment:{p}/sweep",
        "run_number": n,
        "name": name,
        "params": {"lr": lr, "batch_size": 512},
        "code": {"repo": "https://git.example.org/trainer", "commit": commit, "dirty": False},
        "environment": f"environment:{p}/{env}",
        "inputs": [
            {"dataset_version": f"dataset:{p}/{train}", "role": "train"},
            {"dataset_version": f"dataset:{p}/heldout@v1", "role": "validation"},
        ],
    }
    if n == 4:
        payload["resumed_from"] = f"checkpoint:{p}-3/50"
    return ("run.started", payload, 10 * n)


def _metrics(p: str, n: int, *points: tuple[str, int, float]) -> Step:
    listed = [{"name": name, "step": step, "value": value} for name, step, value in points]
    return ("run.metrics.logged", {"run_id": f"{p}-{n}", "points": listed}, 10 * n + 3)


def _end(p: str, n: int, kind: str, **payload: Any) -> Step:
    return (f"run.{kind}", {"run_id": f"{p}-{n}", **payload}, 10 * n + 6)


def story(p: str) -> list[Step]:
    return [
        *_setup(p),
        _start(p, 1, "base", 3e-4, "web@v1", "aaa1111", "img-a"),
        _metrics(p, 1, ("train/loss", 100, 2.5), ("val/loss", 100, 2.2)),
        _end(p, 1, "completed", conclusion="baseline", final_metrics={"val/loss": 2.0}),
        _start(p, 2, "lower-lr", 1e-4, "web@v1", "aaa1111", "img-a"),
        _metrics(p, 2, ("val/loss", 100, 2.0), ("val/loss", 200, 1.9), ("train/loss", 200, 2.3)),
        _end(p, 2, "completed", conclusion="lower lr helps", final_metrics={"val/loss": 1.8}),
        _start(p, 3, "v2-data", 1e-4, "web@v2", "bbb2222", "img-a"),
        _metrics(p, 3, ("train/loss", 50, 2.1)),
        ("checkpoint.saved", {"run_id": f"{p}-3", "step": 50, "uri": "s3://ckpt/3/50"}, 34),
        _end(
            p,
            3,
            "failed",
            conclusion="v2 shards too long",
            error={"type": "OOM", "message": "CUDA out of memory"},
        ),
        _start(p, 4, "v2-resumed", 1e-4, "web@v2", "bbb2222", "img-a"),
        _metrics(p, 4, ("eval/loss", 300, 1.7)),
        _end(p, 4, "completed", final_metrics={"val/loss": 1.6}),
        _start(p, 5, "torch-2.6", 1e-4, "web@v2", "bbb2222", "img-b"),
        _metrics(p, 5, ("val/loss", 40, 1.95)),
        _end(p, 5, "aborted", reason="preempted"),
    ]


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    events = [_event(project, t, payload, minute) for t, payload, minute in story(project)]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


QUERY = """query($e: ID, $runs: [ID!], $all: Boolean!, $b: ID, $s: String) {
  compare(experiment: $e, runs: $runs, all: $all, baseline: $b, sortBy: $s) {
    experiment basis baseline sortBy truncated params flagged
    metrics { key source name split metric }
    runs { id number name status conclusion conclusionMissing abortReason durationS
      error { type message }
      params { name value }
      inputs { role datasetVersion }
      environment { id image }
      code { commit dirty }
      resumedFrom { id step run }
      metrics { key value step }
      check { against basis flagged unverifiable changes { kind name before after } }
    }
  }
}"""


def _gql(driver: Driver, **variables: Any) -> dict[str, Any]:
    settings = QuerySettings()
    context = make_context(settings, neo4j_readers(driver, settings=settings))
    values = {"all": False, **variables}
    result = asyncio.run(
        make_schema(settings).execute(QUERY, variable_values=values, context_value=context)
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    answer: dict[str, Any] = result.data["compare"]
    return answer


def _cli(endpoint: Any, *argv: str) -> subprocess.CompletedProcess[str]:
    return provgraph_cli(endpoint, "compare", *argv)


METRIC_KEYS = ["final:val/loss", "last:eval/loss", "last:train/loss", "last:val/loss"]
# number -> {metric key: value}, None a gap (never a value of another definition).
METRICS = {
    1: [2.0, None, 2.5, 2.2],
    2: [1.8, None, 2.3, 1.9],
    3: [None, None, 2.1, None],
    4: [1.6, 1.7, None, None],
    5: [None, None, None, 1.95],
}


def _changes(answer: dict[str, Any]) -> dict[int, list[tuple[str, str]]]:
    return {
        r["number"]: [(c["kind"], c["name"]) for c in r["check"]["changes"]] for r in answer["runs"]
    }


def test_compare_an_experiment_through_graphql(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _gql(neo4j_driver, e=f"experiment:{p}/sweep")
    assert answer["experiment"] == f"experiment:{p}/sweep" and answer["basis"] == "previous"
    assert answer["truncated"] is False and answer["sortBy"] is None
    assert answer["params"] == ["lr"]
    assert [m["key"] for m in answer["metrics"]] == METRIC_KEYS
    assert answer["metrics"][1] == {
        "key": "last:eval/loss",
        "source": "last",
        "name": "eval/loss",
        "split": "eval",
        "metric": "loss",
    }
    runs = answer["runs"]
    assert [r["number"] for r in runs] == [1, 2, 3, 4, 5]
    assert [r["status"] for r in runs] == [
        "completed",
        "completed",
        "failed",
        "completed",
        "aborted",
    ]
    assert {r["number"]: [m["value"] for m in r["metrics"]] for r in runs} == METRICS
    assert runs[1]["metrics"][3] == {"key": "last:val/loss", "value": 1.9, "step": 200}
    assert [r["durationS"] for r in runs] == [360.0] * 5
    failed, resumed, aborted = runs[2], runs[3], runs[4]
    assert failed["error"] == {"type": "OOM", "message": "CUDA out of memory"}
    assert failed["conclusion"] == "v2 shards too long" and not failed["conclusionMissing"]
    assert resumed["conclusion"] is None and resumed["conclusionMissing"] is True
    assert resumed["resumedFrom"] == [
        {"id": f"checkpoint:{p}-3/50", "step": 50, "run": f"run:{p}-3"}
    ]
    assert aborted["abortReason"] == "preempted" and not aborted["conclusionMissing"]
    assert aborted["environment"] == {
        "id": f"environment:{p}/img-b",
        "image": "registry.example.org/trainer:2026.03",
    }
    assert failed["inputs"] == [
        {"role": "train", "datasetVersion": f"dataset:{p}/web@v2"},
        {"role": "validation", "datasetVersion": f"dataset:{p}/heldout@v1"},
    ]
    assert failed["code"] == {"commit": "bbb2222", "dirty": False}
    assert _changes(answer) == {
        1: [],
        2: [("PARAM", "lr")],
        3: [("INPUT", f"train dataset:{p}/web"), ("CODE", "code")],
        4: [],
        5: [("ENVIRONMENT", "environment")],
    }
    assert failed["check"]["against"] == f"run:{p}-2" and failed["check"]["flagged"] is True
    assert failed["check"]["changes"][1] == {
        "kind": "CODE",
        "name": "code",
        "before": "aaa1111",
        "after": "bbb2222",
    }
    assert answer["flagged"] == [f"run:{p}-3"]


def test_baseline_sort_and_all_params_through_graphql(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _gql(
        neo4j_driver, e=f"experiment:{p}/sweep", b=f"run:{p}-1", s="-last:val/loss", all=True
    )
    assert answer["basis"] == "baseline" and answer["sortBy"] == "-last:val/loss"
    assert answer["params"] == ["batch_size", "lr"]
    # 2.2, 1.95, 1.9, then the runs without a last val/loss, in number order.
    assert [r["number"] for r in answer["runs"]] == [1, 5, 2, 3, 4]
    assert _changes(answer)[5] == [
        ("PARAM", "lr"),
        ("INPUT", f"train dataset:{p}/web"),
        ("ENVIRONMENT", "environment"),
        ("CODE", "code"),
    ]
    assert answer["flagged"] == [f"run:{p}-3", f"run:{p}-4", f"run:{p}-5"]


def test_compare_named_runs_and_not_found(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _gql(neo4j_driver, runs=[f"run:{p}-5", f"run:{p}-2"])
    assert answer["experiment"] is None
    assert [r["number"] for r in answer["runs"]] == [2, 5]
    assert _changes(answer)[5] == [
        ("INPUT", f"train dataset:{p}/web"),
        ("ENVIRONMENT", "environment"),
        ("CODE", "code"),
    ]
    settings = QuerySettings()
    context = make_context(settings, neo4j_readers(neo4j_driver, settings=settings))
    result = asyncio.run(
        make_schema(settings).execute(
            f'{{ compare(experiment: "experiment:{p}/none") {{ basis }} }}', context_value=context
        )
    )
    assert result.errors is not None
    assert result.errors[0].extensions is not None
    assert result.errors[0].extensions["code"] == "not_found"


def test_another_project_sees_nothing(neo4j_driver: Driver, seeded: str) -> None:
    comparisons = Comparisons(neo4j_readers(neo4j_driver).compare, 500)
    own, other = Scope(frozenset({seeded})), Scope(frozenset({"someone-else"}))
    assert len(comparisons.compare(own, experiment=f"experiment:{seeded}/sweep")["runs"]) == 5
    with pytest.raises(NotFoundError):
        comparisons.compare(other, experiment=f"experiment:{seeded}/sweep")
    with pytest.raises(NotFoundError, match=f"run:{seeded}-1"):
        comparisons.compare(other, runs=[f"run:{seeded}-1"])


def test_cli_json_and_check(neo4j_endpoint: Any, seeded: str) -> None:
    p = seeded
    done = _cli(neo4j_endpoint, f"experiment:{p}/sweep", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert [m["key"] for m in answer["metrics"]] == METRIC_KEYS
    assert {r["number"]: [m["value"] for m in r["metrics"]] for r in answer["runs"]} == METRICS
    assert {
        r["number"]: [(c["kind"], c["name"]) for c in r["check"]["changes"]] for r in answer["runs"]
    } == {
        1: [],
        2: [("param", "lr")],
        3: [("input", f"train dataset:{p}/web"), ("code", "code")],
        4: [],
        5: [("environment", "environment")],
    }
    assert answer["flagged"] == [f"run:{p}-3"]
    assert answer["gates_flagged"] == [] and all(r["data_gates"] == [] for r in answer["runs"])

    flagged = _cli(neo4j_endpoint, f"experiment:{p}/sweep", "--check")
    assert flagged.returncode == 3, flagged.stderr
    assert "#3 vs #2: FLAGGED, 2 settings differ" in flagged.stdout
    shown = shown_output(ROOT, "docs/practices.md", "experiment:p/sweep: 5 runs")
    assert text_mismatch(shown, flagged.stdout.replace(p, "p")) is None, flagged.stdout
    clean = _cli(neo4j_endpoint, f"run:{p}-1", f"run:{p}-2", "--check", "--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["flagged"] == []
    sorted_ = _cli(neo4j_endpoint, f"experiment:{p}/sweep", "--sort", "val/loss", "--json")
    assert [r["number"] for r in json.loads(sorted_.stdout)["runs"]] == [4, 2, 1, 3, 5]
    assert _cli(neo4j_endpoint, f"experiment:{p}/none").returncode == 1
    assert _cli(neo4j_endpoint, f"run:{p}-1", "--sort", "acc").returncode == 2
