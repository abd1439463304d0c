"""`effects` on a seeded story in Neo4j, through GraphQL and through `provgraph effects`.

The story (project p; every run trains on web@v1 in env img-a with code aaa1111, lr 1e-5,
batch_size 64 unless said; expected answers below are written from it by hand):

  experiment sweep (run n starts at minute 10n)
    #1 base         completed, final val/loss 1.10
    #2 lr-2e-5      lr 2e-5 (one change)                        1.00   delta -0.10
    #3 bs-128       lr 2e-5, batch_size 128 (one change)        failed: OutOfMemoryError
    #4 v2-data      lr 2e-5, train web@v2 (two changes vs #3: batch_size back, web@v2): FLAGGED
                    completed 0.98
    #5 v2-again     as #4 (nothing changed: a repeat)           0.97
    #6 img-b        as #5 in env img-b (one change)             0.99   delta +0.02
  experiment ablation (run n starts at minute 100 + 10n)
    #1 base         completed 1.30
    #2 lr-2e-5      lr 2e-5 (one change)                        1.24   delta -0.06
    #3 v2-data      lr 2e-5, train web@v2 (one change)          1.18   delta -0.06
    #4 bs-128       as #3, batch_size 128 (one change)          failed: OutOfMemoryError
    #5 bs-64        as #3 (one change vs #4: batch_size back)   1.17   (#4 has no value)
  A run in no experiment (`loose`) is never part of a pair.

  So: lr 1e-05 -> 2e-05 twice (-0.10, -0.06: mean -0.08, sd 0.028); batch_size 64 -> 128 twice,
  both failed out of memory; batch_size 128 -> 64, train web v1 -> v2 (-0.06) and the
  environment img-a -> img-b (+0.02) once each: 7 pairs counted, 1 flagged, 1 repeat.
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

from provgraph.core.errors import NotFoundError
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.compare_service import Comparisons
from provgraph.query.settings import QuerySettings

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]
Step = tuple[str, dict[str, Any], int]
OOM = {"type": "OutOfMemoryError", "message": "CUDA out of memory"}


def _setup() -> list[Step]:
    out: list[Step] = [
        ("experiment.created", {"key": "sweep", "number": 1, "goal": "lr and batch size"}, 0),
        ("experiment.created", {"key": "ablation", "number": 2, "goal": "the same again"}, 0),
    ]
    image = {"name": "registry.example.org/trainer", "tag": "2026.03"}
    for key, torch in (("img-a", "2.5.1"), ("img-b", "2.6.0")):
        env = {"key": key, "image": image, "packages": {"torch": torch}}
        out.append(("environment.snapshot.recorded", env, 0))
    for version in ("v1", "v2"):
        created = {"name": "web", "version": version, "storage_uri": f"s3://b/web/{version}/"}
        out.append(("dataset.version.created", created, 0))
    return out


def _run(
    p: str,
    experiment: str | None,
    n: int,
    minute: int,
    name: str,
    *,
    lr: float = 1e-5,
    batch_size: int = 64,
    train: str = "web@v1",
    env: str = "img-a",
    loss: float | None = None,
) -> list[Step]:
    run_id = f"{p}-{experiment}-{n}"
    start: dict[str, Any] = {
        "run_id": run_id,
        "run_number": n,
        "name": name,
        "params": {"lr": lr, "batch_size": batch_size},
        "code": {"repo": "https://git.example.org/trainer", "commit": "aaa1111", "dirty": False},
        "environment": f"environment:{p}/{env}",
        "inputs": [{"dataset_version": f"dataset:{p}/{train}", "role": "train"}],
    }
    if experiment is not None:
        start["experiment"] = f"experiment:{p}/{experiment}"
    if loss is None:
        end = ("run.failed", {"run_id": run_id, "error": OOM}, minute + 6)
    else:
        end = ("run.completed", {"run_id": run_id, "final_metrics": {"val/loss": loss}}, minute + 6)
    return [("run.started", start, minute), end]


def story(p: str) -> list[Step]:
    v2: dict[str, Any] = {"lr": 2e-5, "train": "web@v2"}
    return [
        *_setup(),
        *_run(p, "sweep", 1, 10, "base", loss=1.10),
        *_run(p, "sweep", 2, 20, "lr-2e-5", lr=2e-5, loss=1.00),
        *_run(p, "sweep", 3, 30, "bs-128", lr=2e-5, batch_size=128),
        *_run(p, "sweep", 4, 40, "v2-data", **v2, loss=0.98),
        *_run(p, "sweep", 5, 50, "v2-again", **v2, loss=0.97),
        *_run(p, "sweep", 6, 60, "img-b", **v2, env="img-b", loss=0.99),
        *_run(p, "ablation", 1, 110, "base", loss=1.30),
        *_run(p, "ablation", 2, 120, "lr-2e-5", lr=2e-5, loss=1.24),
        *_run(p, "ablation", 3, 130, "v2-data", **v2, loss=1.18),
        *_run(p, "ablation", 4, 140, "bs-128", **v2, batch_size=128),
        *_run(p, "ablation", 5, 150, "bs-64", **v2, loss=1.17),
        *_run(p, None, 1, 200, "loose", lr=3e-5, loss=0.5),
    ]


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    events = [
        story_event(project, t, payload, T0 + timedelta(minutes=minute))
        for t, payload, minute in story(project)
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


QUERY = """query($p: String!, $m: String!, $since: String, $by: EffectGrouping!) {
  effects(project: $p, metric: $m, since: $since, groupBy: $by) {
    project since groupBy runsRead truncated pairs flaggedPairs repeatPairs
    metric { key }
    effects { kind name label before after factor pairs measured meanDelta spread minDelta
      maxDelta failed running failures { error count } runs { experiment before after status delta }
    }
  }
}"""


def _gql(driver: Driver, settings: QuerySettings | None = None, **variables: Any) -> Any:
    values = {"m": "final:val/loss", "since": None, "by": "VALUE", **variables}
    return graphql_result(driver, QUERY, values, settings)


def _answer(driver: Driver, **variables: Any) -> dict[str, Any]:
    result = _gql(driver, **variables)
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["effects"]
    return answer


def _summary(answer: dict[str, Any], mean: str = "meanDelta") -> list[tuple[Any, ...]]:
    """(label, pairs, measured, mean, sd, failed) per effect, numbers rounded to 4 places
    (`mean`: the field's name, `mean_delta` in the CLI's JSON)."""

    def r(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return [
        (e["label"], e["pairs"], e["measured"], r(e[mean]), r(e["spread"]), e["failed"])
        for e in answer["effects"]
    ]


def test_effects_of_one_change_at_a_time_through_graphql(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _answer(neo4j_driver, p=p)
    assert answer["project"] == p and answer["metric"] == {"key": "final:val/loss"}
    assert (answer["runsRead"], answer["truncated"]) == (11, False)  # the loose run is no member
    assert (answer["pairs"], answer["flaggedPairs"], answer["repeatPairs"]) == (7, 1, 1)
    assert _summary(answer) == [
        ("batch_size: 64 -> 128", 2, 0, None, None, 2),
        ("lr: 1e-05 -> 2e-05", 2, 2, -0.08, 0.0283, 0),
        ("environment: img-a -> img-b", 1, 1, 0.02, None, 0),
        ("train web: web@v1 -> web@v2", 1, 1, -0.06, None, 0),
        ("batch_size: 128 -> 64", 1, 0, None, None, 0),
    ]  # most pairs first, then by kind and label
    failed, lr = answer["effects"][0], answer["effects"][1]
    assert failed["failures"] == [{"error": "OutOfMemoryError", "count": 2}]
    assert (lr["kind"], lr["name"], lr["before"], lr["after"]) == ("PARAM", "lr", 1e-5, 2e-5)
    assert [(r["before"], r["after"], r["experiment"]) for r in lr["runs"]] == [
        (f"run:{p}-sweep-1", f"run:{p}-sweep-2", f"experiment:{p}/sweep"),
        (f"run:{p}-ablation-1", f"run:{p}-ablation-2", f"experiment:{p}/ablation"),
    ]
    data = answer["effects"][3]
    assert (data["kind"], data["name"]) == ("INPUT", f"train dataset:{p}/web")
    assert (data["before"], data["after"]) == (f"dataset:{p}/web@v1", f"dataset:{p}/web@v2")


def test_grouped_by_factor_and_since(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    by_factor = _answer(neo4j_driver, p=p, by="FACTOR")
    assert [(e["label"], e["factor"], e["pairs"]) for e in by_factor["effects"]] == [
        ("batch_size: x2", 2.0, 2),
        ("lr: x2", 2.0, 2),
        ("environment: img-a -> img-b", None, 1),
        ("train web: web@v1 -> web@v2", None, 1),
        ("batch_size: x0.5", 0.5, 1),
    ]
    since = _answer(neo4j_driver, p=p, since="2026-03-01T11:10:00Z")  # ablation #3 on
    assert since["since"] == "2026-03-01T11:10:00.000000Z"
    assert [e["label"] for e in since["effects"]] == [
        "train web: web@v1 -> web@v2",
        "batch_size: 128 -> 64",
        "batch_size: 64 -> 128",
    ]
    assert (since["pairs"], since["flaggedPairs"], since["repeatPairs"]) == (3, 0, 0)


def test_at_most_the_limit_the_latest_runs(neo4j_driver: Driver, seeded: str) -> None:
    settings = QuerySettings(effects_max_runs=3)  # eleven runs: several times the limit
    result = _gql(neo4j_driver, settings, p=seeded)
    assert result.errors is None, result.errors
    answer = result.data["effects"]
    assert (answer["runsRead"], answer["truncated"]) == (3, True)
    # ablation #3..#5: #4 vs #3 and #5 vs #4 (batch_size there and back); #3 has no earlier run
    assert [e["label"] for e in answer["effects"]] == [
        "batch_size: 128 -> 64",
        "batch_size: 64 -> 128",
    ]


def test_errors_and_another_project(neo4j_driver: Driver, seeded: str) -> None:
    unknown = _gql(neo4j_driver, p=seeded, m="acc")
    assert unknown.errors is not None
    assert unknown.errors[0].extensions["code"] == "invalid_argument"
    assert "no run has the metric 'acc'; known: final:val/loss" in unknown.errors[0].message
    missing = _gql(neo4j_driver, p="nowhere-at-all")
    assert missing.errors is not None and missing.errors[0].extensions["code"] == "not_found"
    comparisons = Comparisons(neo4j_readers(neo4j_driver).compare, 500)
    own, other = Scope(frozenset({seeded})), Scope(frozenset({"someone-else"}))
    assert comparisons.effects(own, project=seeded, metric="val/loss")["pairs"] == 7
    with pytest.raises(NotFoundError):
        comparisons.effects(other, project=seeded, metric="val/loss")


def test_cli_text_and_json(neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    done = provgraph_cli(neo4j_endpoint, "effects", "--project", p, "--metric", "val/loss")
    assert done.returncode == 0, done.stderr
    shown = shown_output(ROOT, "docs/practices.md", "p: effect on final:val/loss")
    assert text_mismatch(shown, done.stdout.replace(p, "p")) is None, done.stdout
    as_json = provgraph_cli(
        neo4j_endpoint, "effects", "--project", p, "--metric", "val/loss", "--json"
    )
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert _summary(answer, "mean_delta") == _summary(_answer(neo4j_driver, p=p))
    assert answer["effects"][0]["kind"] == "param" and answer["group_by"] == "value"
    bad = provgraph_cli(neo4j_endpoint, "effects", "--project", p, "--metric", "acc")
    assert bad.returncode == 2 and "no run has the metric 'acc'" in bad.stderr
    gone = provgraph_cli(neo4j_endpoint, "effects", "--project", "nowhere", "--metric", "acc")
    assert gone.returncode == 1, gone.stderr
    when = provgraph_cli(
        neo4j_endpoint, "effects", "--project", p, "--metric", "acc", "--since", "yesterday"
    )
    assert when.returncode == 2 and "--since" in when.stderr
