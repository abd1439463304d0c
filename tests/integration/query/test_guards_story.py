"""The guards and the metric aliases on a seeded story in Neo4j: `lint-metrics`, `lint-names`
and `collisions` through GraphQL and the CLI, and compare, effects and best reading a metric
under its canonical name.

The story is `support.guards_story` (its docstring lays it out: project p, a policy with a
metric alias, naming rules for runs and model versions and a storage root, and the records
that break them); the expected answers below are written from it by hand:

  lint-metrics: val/loss (2 records), val_loss (1), validation/loss (2) share "val/loss";
  canonical val/loss (declared), val_loss undeclared. compare sft: tmp's final val/loss 0.8
  beside sft-r1's 1.0; effects on final:validation/loss (an alias, read as final:val/loss):
  lr 1e-05 -> 2e-05, one pair, delta -0.2. best chat by val/loss (lower is better): chat@v2
  (0.7), previous best chat@v1 (0.9, recorded as validation/loss); chat@release-3 not read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from neo4j import Driver
from support.guards_story import seed_guards_story
from support.stories import graphql_result, provgraph_cli


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    seed_guards_story(neo4j_driver, project)
    return project


GUARDS = """query($p: String!) {
  lintMetrics(project: $p) { metrics aliases { alias canonical }
    groups { key canonical settled undeclared names { name records aliasOf } } }
  lintNames(project: $p) { enforced rules
    kinds { kind rule checked truncated breaks { id name problem suggestion } } }
  collisions(project: $p) { storageRoots enforced checked truncated
    outOfPlace { id kind uri problem run experiment } shared { uri writers { id run experiment } } }
}"""


def _guards(driver: Driver, p: str) -> dict[str, Any]:
    result = graphql_result(driver, GUARDS, {"p": p})
    assert result.errors is None, result.errors
    return dict(result.data)


def test_lint_metrics(neo4j_driver: Driver, seeded: str) -> None:
    answer = _guards(neo4j_driver, seeded)["lintMetrics"]
    assert answer["aliases"] == [{"alias": "validation/loss", "canonical": "val/loss"}]
    assert answer["metrics"] == 4  # train/loss, val/loss, val_loss, validation/loss
    assert answer["groups"] == [
        {
            "key": "val/loss",
            "canonical": "val/loss",
            "settled": False,
            "undeclared": ["val_loss"],
            "names": [
                {"name": "val/loss", "records": 2, "aliasOf": None},
                {"name": "val_loss", "records": 1, "aliasOf": None},
                {"name": "validation/loss", "records": 2, "aliasOf": "val/loss"},
            ],
        }
    ]


def test_lint_names(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _guards(neo4j_driver, p)["lintNames"]
    assert (answer["enforced"], answer["rules"]) == (False, 2)
    runs, models = answer["kinds"]
    assert (runs["kind"], runs["checked"], runs["truncated"]) == ("run", 3, False)
    assert runs["breaks"] == [
        {
            "id": f"run:{p}-sft-2",
            "name": "tmp",
            "problem": "'tmp' does not follow the rule '{experiment}-r{run_number}'",
            "suggestion": "sft-r2",
        }
    ]
    assert (models["kind"], models["checked"]) == ("model_version", 3)
    assert models["breaks"] == [
        {
            "id": f"model:{p}/chat@release-3",
            "name": "release-3",
            "problem": "'release-3' does not follow the rule 'v*'",
            "suggestion": None,
        }
    ]


def test_collisions(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _guards(neo4j_driver, p)["collisions"]
    assert (answer["storageRoots"], answer["enforced"], answer["checked"]) == (
        ["s3://lake/p"],
        False,
        4,  # two checkpoints, the dataset version, chat@v2
    )
    assert [(o["id"], o["uri"]) for o in answer["outOfPlace"]] == [
        (f"dataset:{p}/web@v1", "file:///home/ann/web"),
        (f"model:{p}/chat@v2", "s3://elsewhere/chat/v2"),
    ]
    assert "personal path" in answer["outOfPlace"][0]["problem"]
    assert "outside the project's storage roots" in answer["outOfPlace"][1]["problem"]
    assert answer["outOfPlace"][1]["experiment"] == f"experiment:{p}/sft"
    (shared,) = answer["shared"]
    assert shared["uri"] == "s3://lake/p/ckpt/shared"
    assert sorted((w["run"], w["experiment"]) for w in shared["writers"]) == [
        (f"run:{p}-dpo-1", f"experiment:{p}/dpo"),
        (f"run:{p}-sft-1", f"experiment:{p}/sft"),
    ]


def test_the_cli(neo4j_endpoint: Any, seeded: str) -> None:
    p = seeded
    text = provgraph_cli(neo4j_endpoint, "lint-metrics", "--project", p)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"4 metric names in {p}; 1 spelled more ways"
    assert f"provgraph policy set {p} --metric-alias val_loss=val/loss" in text.stdout
    check = provgraph_cli(neo4j_endpoint, "lint-names", "--project", p, "--check")
    assert check.returncode == 3, check.stderr
    assert f"run:{p}-sft-2: 'tmp' does not follow the rule" in check.stdout
    assert "-> sft-r2" in check.stdout
    found = provgraph_cli(neo4j_endpoint, "collisions", "--project", p, "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["shared"][0]["uri"] == "s3://lake/p/ckpt/shared"
    missing = provgraph_cli(neo4j_endpoint, "collisions", "--project", f"{p}-none")
    assert missing.returncode == 1


COMPARE = """query($x: ID!) { compare(experiment: $x) {
  runs { id metrics { key value } } } }"""


def test_compare_effects_and_best_read_the_canonical_name(
    neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str
) -> None:
    p = seeded
    done = provgraph_cli(neo4j_endpoint, "compare", f"experiment:{p}/sft", "--json")
    assert done.returncode == 0, done.stderr
    compared = json.loads(done.stdout)
    finals = {
        r["id"]: {m["key"]: m["value"] for m in r["metrics"] if m["key"] == "final:val/loss"}
        for r in compared["runs"]
    }
    assert finals == {f"run:{p}-sft-1": {"final:val/loss": 1.0},
                      f"run:{p}-sft-2": {"final:val/loss": 0.8}}  # fmt: skip
    effects = provgraph_cli(
        neo4j_endpoint, "effects", "--project", p, "--metric", "final:validation/loss", "--json"
    )
    assert effects.returncode == 0, effects.stderr
    table = json.loads(effects.stdout)
    assert table["metric"]["key"] == "final:val/loss"
    (effect,) = [e for e in table["effects"] if e["measured"]]
    assert effect["mean_delta"] == pytest.approx(-0.2)
    best = provgraph_cli(
        neo4j_endpoint, "best", f"model:{p}/chat", "--metric", "val/loss", "--json"
    )
    assert best.returncode == 0, best.stderr
    answer = json.loads(best.stdout)
    assert answer["best"]["version"] == f"model:{p}/chat@v2" and answer["best"]["value"] == 0.7
    assert answer["previous_best"]["version"] == f"model:{p}/chat@v1"
    assert answer["previous_best"]["value"] == 0.9
