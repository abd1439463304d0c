"""`best`, `env-diff` and `runs-with` on a seeded story in Neo4j, through GraphQL and through
the CLI's `--json`. Every expected answer below is read off the story, not off the code.

The story (project = the test's own):
- environments: `base` (torch 2.5.1, numpy 2.1.3, tqdm 4.66.0, driver 550.54, image
  trainer:1, nccl ring); `mid` BASED_ON base (only the driver: 560.28); `next` BASED_ON mid
  (torch 2.6.0, flash-attn 2.7.0 added, tqdm removed, image trainer:2, nccl tree); `other`
  unrelated (torch 2.5.1 only);
- runs r1..r4 make model versions chat@1..4: r1 base lr 1e-3 web@v1 commit aaa1111;
  r2 base lr 3e-4 web@v1 aaa1111; r3 mid lr 3e-4 web@v2 aaa1111; r4 next lr 3e-4 web@v2
  bbb2222; r5 ran in `other` and made nothing;
- evaluations (acc): on eval-a@v1 chat@1..4 = 0.50, 0.62, 0.58, 0.66; on eval-b@v1
  0.90, 0.70, 0.80, 0.85.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import shown_output, text_mismatch
from support.stories import graphql_data, story_event
from support.stories import provgraph_cli as _cli

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas import Event

ROOT = Path(__file__).resolve().parents[3]

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
ACC_A = {1: 0.50, 2: 0.62, 3: 0.58, 4: 0.66}
ACC_B = {1: 0.90, 2: 0.70, 3: 0.80, 4: 0.85}
BASE_PACKAGES = {"torch": "2.5.1", "numpy": "2.1.3", "tqdm": "4.66.0"}
NEXT_PACKAGES = {"torch": "2.6.0", "numpy": "2.1.3", "flash-attn": "2.7.0"}


def _event(project: str, event_type: str, payload: dict[str, Any], minute: int) -> Event:
    return story_event(project, event_type, payload, T0 + timedelta(minutes=minute))


def _env(p: str, key: str, based_on: str | None, **contents: Any) -> tuple[str, dict[str, Any]]:
    payload = {"key": key, **contents}
    if based_on is not None:
        payload["based_on"] = f"environment:{p}/{based_on}"
    return ("environment.snapshot.recorded", payload)


def _run(p: str, n: int, env: str, lr: float, train: str, commit: str) -> list[Any]:
    started = {
        "run_id": f"{p}-r{n}",
        "name": f"r{n}",
        "params": {"lr": lr, "batch_size": 64},
        "code": {"repo": "https://git.example.org/trainer", "commit": commit, "dirty": False},
        "environment": f"environment:{p}/{env}",
        "inputs": [{"dataset_version": f"dataset:{p}/{train}", "role": "train"}],
    }
    done = {"run_id": f"{p}-r{n}", "conclusion": "done"}
    return [("run.started", started), ("run.completed", done)]


def _model(p: str, n: int) -> tuple[str, dict[str, Any]]:
    payload = {"name": "chat", "version": str(n), "produced_by_run": f"run:{p}-r{n}"}
    return ("model.version.registered", payload)


def _evaluation(p: str, n: int, data: str, acc: float) -> tuple[str, dict[str, Any]]:
    payload = {
        "evaluation_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{p}/{n}/{data}")),
        "model_version": f"model:{p}/chat@{n}",
        "suite": "harness",
        "dataset_versions": [f"dataset:{p}/{data}"],
        "metrics": {"acc": acc},
        "passed": True,
    }
    return ("model.version.evaluated", payload)


def _story(p: str) -> list[tuple[str, dict[str, Any]]]:
    system_ring = {"nccl": {"algo": "ring"}}
    steps: list[tuple[str, dict[str, Any]]] = [
        (
            "dataset.version.created",
            {"name": name, "version": v, "storage_uri": f"s3://b/{name}/{v}/"},
        )
        for name, v in (("web", "v1"), ("web", "v2"), ("eval-a", "v1"), ("eval-b", "v1"))
    ]
    trainer_1 = {"name": "registry.example.org/trainer", "tag": "1"}
    steps += [
        _env(p, "base", None, packages=BASE_PACKAGES, driver_version="550.54",
             image=trainer_1, system=system_ring),
        _env(p, "mid", "base", packages=BASE_PACKAGES, driver_version="560.28",
             image=trainer_1, system=system_ring),
        _env(p, "next", "mid", packages=NEXT_PACKAGES, driver_version="560.28",
             image={"name": "registry.example.org/trainer", "tag": "2"},
             system={"nccl": {"algo": "tree"}}),
        _env(p, "other", None, packages={"torch": "2.5.1"}),
    ]  # fmt: skip
    runs = [(1, "base", 1e-3, "web@v1", "aaa1111"), (2, "base", 3e-4, "web@v1", "aaa1111")]
    runs += [(3, "mid", 3e-4, "web@v2", "aaa1111"), (4, "next", 3e-4, "web@v2", "bbb2222")]
    for n, env, lr, train, commit in runs:
        steps += [*_run(p, n, env, lr, train, commit), _model(p, n)]
    steps += _run(p, 5, "other", 3e-4, "web@v2", "aaa1111")
    for n in (1, 2, 3, 4):
        steps += [
            _evaluation(p, n, "eval-a@v1", ACC_A[n]),
            _evaluation(p, n, "eval-b@v1", ACC_B[n]),
        ]
    return steps


@pytest.fixture()
def story(neo4j_driver: Driver, project: str) -> str:
    events = [_event(project, t, payload, i) for i, (t, payload) in enumerate(_story(project))]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


@pytest.fixture()
def gql(neo4j_driver: Driver, story: str) -> Any:
    return graphql_data(neo4j_driver)


# ---- best ---------------------------------------------------------------------------------


def test_best_through_graphql(gql: Any, story: str) -> None:
    p = story
    data = gql(
        f"""{{
          both: bestModelVersion(model: "model:{p}/chat", metric: "acc", higherIsBetter: true) {{
            ambiguous best {{ modelVersion }} evaluationSets {{ datasets suite versions }} }}
          a: bestModelVersion(model: "chat", project: "{p}", metric: "acc",
                              datasets: ["dataset:{p}/eval-a@v1"], higherIsBetter: true) {{
            evaluationSet {{ datasets }} best {{ modelVersion value }}
            previousBest {{ modelVersion value }} delta ranking {{ label }} diff }}
          b: bestModelVersion(model: "model:{p}/chat", metric: "acc",
                              datasets: ["dataset:{p}/eval-b@v1"], higherIsBetter: true) {{
            best {{ modelVersion }} previousBest {{ modelVersion }} delta message }}
        }}"""
    )
    both = data["both"]
    assert both["ambiguous"] is True and both["best"] is None
    assert both["evaluationSets"] == [
        {"datasets": [f"dataset:{p}/eval-a@v1"], "suite": "harness", "versions": 4},
        {"datasets": [f"dataset:{p}/eval-b@v1"], "suite": "harness", "versions": 4},
    ]
    a = data["a"]
    assert a["evaluationSet"] == {"datasets": [f"dataset:{p}/eval-a@v1"]}
    assert a["best"] == {"modelVersion": f"model:{p}/chat@4", "value": 0.66}
    assert a["previousBest"] == {"modelVersion": f"model:{p}/chat@2", "value": 0.62}
    assert a["delta"] == pytest.approx(0.04)
    assert [r["label"] for r in a["ranking"]] == ["4", "2", "3", "1"]
    # chat@2 (r2) -> chat@4 (r4): web@v1 -> web@v2, base -> next, aaa1111 -> bbb2222; same params.
    diff = a["diff"]
    assert diff["runs"] == {"a": f"run:{p}-r2", "b": f"run:{p}-r4"}
    assert diff["chain"][0]["aspects"] == ["inputs", "environment", "code"]
    assert diff["environment"]["packages"]["changed"] == {"torch": {"a": "2.5.1", "b": "2.6.0"}}
    b = data["b"]
    assert b["best"] == {"modelVersion": f"model:{p}/chat@1"}
    assert b["previousBest"] is None and b["delta"] is None
    assert b["message"] == "the best is the first version evaluated on this set"


def test_best_through_the_cli(neo4j_endpoint: Any, story: str) -> None:
    p = story
    listed = _cli(neo4j_endpoint, "best", f"model:{p}/chat", "--metric", "acc", "--json")
    assert listed.returncode == 2, listed.stderr
    assert [s["datasets"] for s in json.loads(listed.stdout)["evaluation_sets"]] == [
        [f"dataset:{p}/eval-a@v1"],
        [f"dataset:{p}/eval-b@v1"],
    ]
    both = _cli(neo4j_endpoint, "best", f"model:{p}/chat", "--metric", "acc", "--higher-is-better")
    assert both.returncode == 2
    shown = shown_output(ROOT, "docs/practices.md", "best model:p/chat --metric acc")  # the first
    assert text_mismatch(shown, both.stdout.replace(p, "p")) is None, both.stdout
    argv = ["best", "chat", "--project", p, "--metric", "acc", "--higher-is-better"]
    found = _cli(neo4j_endpoint, *argv, "--dataset", f"dataset:{p}/eval-a@v1", "--json")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["best"]["version"] == f"model:{p}/chat@4"
    assert answer["previous_best"]["version"] == f"model:{p}/chat@2"
    assert answer["delta"] == pytest.approx(0.04)
    assert answer["diff"]["code"]["b"]["commit"] == "bbb2222"
    text = _cli(neo4j_endpoint, *argv, "--dataset", f"dataset:{p}/eval-a@v1")
    assert text.returncode == 0
    shown = shown_output(ROOT, "docs/practices.md", "--dataset dataset:p/eval-a@v1")
    assert text_mismatch(shown, text.stdout.replace(p, "p")) is None, text.stdout
    assert f"previous best: model:{p}/chat@2 = 0.62" in text.stdout
    # Lower is better by default: on eval-b chat@2 (0.70) is best, nothing before it was lower.
    low = _cli(neo4j_endpoint, "best", f"model:{p}/chat", "--metric", "acc",
               "--dataset", f"dataset:{p}/eval-b@v1", "--json")  # fmt: skip
    assert low.returncode == 0
    low_answer = json.loads(low.stdout)
    assert low_answer["best"]["version"] == f"model:{p}/chat@2"
    assert low_answer["previous_best"]["version"] == f"model:{p}/chat@1"
    assert low_answer["delta"] == pytest.approx(-0.20)
    missing = _cli(neo4j_endpoint, "best", f"model:{p}/none", "--metric", "acc")
    assert missing.returncode == 1


# ---- env-diff -----------------------------------------------------------------------------


def test_env_diff_along_the_chain_through_graphql(gql: Any, story: str) -> None:
    p = story
    data = gql(
        f"""{{ environmentDiff(a: "environment:{p}/base", b: "environment:{p}/next") {{
                 same related changes {{ section name change a b }}
                 chain {{ from to relation changes {{ section name change a b }} }} }}
               unrelated: environmentDiff(a: "environment:{p}/base", b: "environment:{p}/other") {{
                 related chain {{ from }} changes {{ section name change }} }} }}"""
    )
    found = data["environmentDiff"]
    driver = {"section": "driver_version", "name": "driver_version", "change": "changed",
              "a": "550.54", "b": "560.28"}  # fmt: skip
    contents = [
        {"section": "packages", "name": "flash-attn", "change": "added", "a": None, "b": "2.7.0"},
        {"section": "packages", "name": "torch", "change": "changed", "a": "2.5.1", "b": "2.6.0"},
        {"section": "packages", "name": "tqdm", "change": "removed", "a": "4.66.0", "b": None},
        {"section": "system", "name": "nccl.algo", "change": "changed", "a": "ring", "b": "tree"},
    ]
    trainer = "registry.example.org/trainer"
    image = {"section": "image", "name": "image", "change": "changed",
             "a": f"{trainer}:1", "b": f"{trainer}:2"}  # fmt: skip
    assert found["same"] is False and found["related"] is True
    assert found["changes"] == [*contents, driver, image]
    assert found["chain"] == [
        {"from": f"environment:{p}/base", "to": f"environment:{p}/mid", "relation": "newer",
         "changes": [driver]},
        {"from": f"environment:{p}/mid", "to": f"environment:{p}/next", "relation": "newer",
         "changes": [*contents, image]},
    ]  # fmt: skip
    unrelated = data["unrelated"]
    assert unrelated["related"] is False and unrelated["chain"] is None
    # other has torch only: numpy and tqdm removed; no driver, image or system any more.
    assert {(c["section"], c["name"], c["change"]) for c in unrelated["changes"]} == {
        ("packages", "numpy", "removed"),
        ("packages", "tqdm", "removed"),
        ("system", "nccl.algo", "removed"),
        ("driver_version", "driver_version", "removed"),
        ("image", "image", "removed"),
    }


def test_env_diff_through_the_cli(neo4j_endpoint: Any, story: str) -> None:
    p = story
    back = _cli(neo4j_endpoint, "env-diff", f"environment:{p}/next", f"environment:{p}/base",
                "--json")  # fmt: skip
    assert back.returncode == 0, back.stderr
    answer = json.loads(back.stdout)
    assert [(s["from"], s["to"], s["relation"]) for s in answer["chain"]] == [
        (f"environment:{p}/next", f"environment:{p}/mid", "older"),
        (f"environment:{p}/mid", f"environment:{p}/base", "older"),
    ]
    torch = next(c for c in answer["changes"] if c["name"] == "torch")
    assert (torch["a"], torch["b"]) == ("2.6.0", "2.5.1")
    text = _cli(neo4j_endpoint, "env-diff", f"environment:{p}/base", f"environment:{p}/mid")
    assert text.returncode == 0
    whole = _cli(neo4j_endpoint, "env-diff", f"environment:{p}/base", f"environment:{p}/next")
    shown = shown_output(
        ROOT, "docs/practices.md", "env-diff environment:p/base environment:p/next"
    )
    assert text_mismatch(shown, whole.stdout.replace(p, "p")) is None, whole.stdout
    assert any(line.split() == ["driver_version", "driver_version", "changed", "550.54", "560.28"]
               for line in text.stdout.splitlines())  # fmt: skip
    missing = _cli(neo4j_endpoint, "env-diff", f"environment:{p}/base", f"environment:{p}/none")
    assert missing.returncode == 1 and "(argument b)" in missing.stderr


# ---- runs-with ----------------------------------------------------------------------------


def test_runs_with_a_package_through_graphql(gql: Any, story: str) -> None:
    p = story
    data = gql(
        f"""{{ old: runsWithPackage(package: "torch", version: "2.5.1", project: "{p}") {{
                 runs {{ id environment version section }} truncated }}
               new: runsWithPackage(package: "torch==2.6.0", project: "{p}") {{
                 runs {{ id name status }} }}
               flash: runsWithPackage(package: "Flash_Attn", project: "{p}") {{
                 runs {{ id recordedAs version }} }}
               none: runsWithPackage(package: "torch", version: "9.9", project: "{p}") {{
                 runs {{ id }} }}
               cut: runsWithPackage(package: "numpy", project: "{p}", limit: 2) {{
                 runs {{ id }} truncated }} }}"""
    )
    old = data["old"]
    assert old["truncated"] is False
    assert [(r["id"], r["environment"]) for r in old["runs"]] == [
        (f"run:{p}-r1", f"environment:{p}/base"),
        (f"run:{p}-r2", f"environment:{p}/base"),
        (f"run:{p}-r3", f"environment:{p}/mid"),
        (f"run:{p}-r5", f"environment:{p}/other"),
    ]
    assert {(r["version"], r["section"]) for r in old["runs"]} == {("2.5.1", "packages")}
    assert data["new"]["runs"] == [{"id": f"run:{p}-r4", "name": "r4", "status": "completed"}]
    assert data["flash"]["runs"] == [
        {"id": f"run:{p}-r4", "recordedAs": "flash-attn", "version": "2.7.0"}
    ]
    assert data["none"]["runs"] == []
    # numpy 2.1.3 is in base, mid and next: r1..r4, cut after two.
    assert data["cut"] == {
        "runs": [{"id": f"run:{p}-r1"}, {"id": f"run:{p}-r2"}],
        "truncated": True,
    }


def test_runs_with_a_package_through_the_cli(neo4j_endpoint: Any, story: str) -> None:
    p = story
    found = _cli(neo4j_endpoint, "runs-with", "torch==2.6.0", "--project", p, "--json")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert (answer["package"], answer["version"]) == ("torch", "2.6.0")
    assert [r["id"] for r in answer["runs"]] == [f"run:{p}-r4"]
    text = _cli(neo4j_endpoint, "runs-with", "tqdm", "--project", p)
    assert text.returncode == 0
    assert text.stdout.splitlines()[0] == "runs with tqdm:"
    assert sum(f"run:{p}-r" in line for line in text.stdout.splitlines()) == 3  # r1, r2, r3
    listed = _cli(neo4j_endpoint, "runs-with", "torch==2.5.1", "--project", p)
    shown = shown_output(ROOT, "docs/practices.md", "runs-with torch==2.5.1 --project p")
    assert text_mismatch(shown, listed.stdout.replace(p, "p")) is None, listed.stdout
    none = _cli(neo4j_endpoint, "runs-with", "torch==9.9", "--project", p)
    assert none.returncode == 1 and none.stdout.strip() == "no run ran with torch==9.9"


def test_a_reader_of_another_project_sees_none_of_it(neo4j_driver: Driver, story: str) -> None:
    p = story
    settings = QuerySettings()
    schema = make_schema(settings)
    elsewhere = Scope(frozenset({f"{p}-elsewhere"}))
    readers = neo4j_readers(neo4j_driver, settings=settings)
    context = make_context(settings, readers, scope=elsewhere)
    query = f"""{{ runsWithPackage(package: "torch") {{ runs {{ id }} }}
                  bestModelVersion(model: "model:{p}/chat", metric: "acc") {{ best {{ value }} }}
                  environmentDiff(a: "environment:{p}/base", b: "environment:{p}/next") {{ same }}
               }}"""
    result = asyncio.run(schema.execute(query, context_value=context))
    assert result.data is not None
    assert result.data["runsWithPackage"] == {"runs": []}
    assert result.data["bestModelVersion"] is None and result.data["environmentDiff"] is None
    codes = sorted((e.extensions or {}).get("code") for e in result.errors or [])
    assert codes == ["not_found", "not_found"]
