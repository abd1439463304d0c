"""reproduce against real Neo4j: the demo story's recipes, gaps, scope, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.service import Recipes
from provgraph.schemas import REGISTRY, Event

SHA = "sha256:" + "ab" * 32
EVERYTHING = Scope.everything()


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> str:
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    return project


def _dataset(project: str, name: str, version: str) -> str:
    return f"dataset:{project}/{name}@{version}"


def _walk_ids(inputs: list[dict[str, Any]]) -> list[tuple[str, str, list[Any]]]:
    """(role, id, derivation as nested (transform, id, ...)) of each input."""

    def tree(node: dict[str, Any]) -> list[Any]:
        return [(d["transform"], d["id"], tree(d)) for d in node["derived_from"]]

    return [(i["role"], i["id"], tree(i)) for i in inputs]


def test_reproduce_the_deployed_model_gives_its_whole_recipe(
    neo4j_driver: Driver, demo: str
) -> None:
    p = demo
    recipe = Recipes(neo4j_readers(neo4j_driver).recipes).reproduce(
        f"model:{p}/chat-1b@1.0.0", EVERYTHING
    )

    assert recipe is not None
    # The fine-tune trains on instruct v1-clean, which recorded no quality gates; the
    # pre-training's web-corpus v2 passed its one check.
    assert recipe["gaps"] == [
        {
            "at": _dataset(p, "instruct", "v1-clean"),
            "issue": f"no quality gates recorded (trained on by run:{p}-demo-finetune-001)",
        }
    ]
    assert recipe["target"]["id"] == f"model:{p}/chat-1b@1.0.0"
    assert recipe["target"]["type"] == "ModelVersion"
    assert recipe["exported_from"]["id"] == f"checkpoint:{p}-demo-finetune-001/300"
    assert recipe["datasets"] == sorted(
        _dataset(p, n, v)
        for n, v in [
            ("instruct", "v1-clean"),
            ("instruct", "v1"),
            ("web-corpus", "v2"),
            ("web-corpus", "v1"),
            ("heldout", "v1"),
        ]
    )
    finetune = recipe["run"]
    assert finetune["id"] == f"run:{p}-demo-finetune-001"
    assert finetune["params"] == {"lr": 1e-5, "batch_size": 64, "epochs": 3}
    assert finetune["code"] == {
        "repo": "https://git.example.org/ml/trainer",
        "commit": "9b1d0e2",
        "dirty": False,
    }
    assert _walk_ids(finetune["inputs"]) == [
        (
            "train",
            _dataset(p, "instruct", "v1-clean"),
            [("clean", _dataset(p, "instruct", "v1"), [])],
        )
    ]
    clean = finetune["inputs"][0]
    assert clean["storage_uri"] == "s3://demo/instruct/v1-clean/"
    assert clean["checksum"] == SHA
    assert clean["record_count"] == 48_500
    assert [r["name"] for r in clean["cleaning_rules"]] == ["pii-scrub", "unicode-nfc"]
    assert clean["derived_from"][0]["storage_uri"] == "s3://demo/instruct/v1/"
    assert finetune["environment"] == {
        "id": f"environment:{p}/trainer-2026-01",
        "image": {"name": "registry.example.org/ml/trainer", "tag": "2026.01", "digest": SHA},
        "image_ref": f"registry.example.org/ml/trainer:2026.01@{SHA}",
        "base_image": None,  # the demo's snapshots record no base image, driver, libraries
        "base_image_ref": None,
        "python_version": "3.11.7",
        "driver_version": None,
        "packages": {"torch": "2.5.1", "numpy": "2.1.3"},
        "frameworks": {"torch": "2.5.1"},
        "parallel_libs": {},
        "compute_libs": {},
        "system": {},
        "placeholder": False,
    }
    assert finetune["resumed_from"] == []

    base = finetune["base"]
    assert (base["type"], base["id"]) == ("ModelVersion", f"model:{p}/base-1b@1.0.0")
    pretrain = base["run"]
    assert pretrain["id"] == f"run:{p}-demo-pretrain-001"
    assert pretrain["code"]["commit"] == "4f2a9c1"
    assert _walk_ids(pretrain["inputs"]) == [
        (
            "train",
            _dataset(p, "web-corpus", "v2"),
            [("dedup", _dataset(p, "web-corpus", "v1"), [])],
        ),
        ("validation", _dataset(p, "heldout", "v1"), []),
    ]
    # The demo records a split on web-corpus@v2 and a source on web-corpus@v1, nothing else.
    web_v2, heldout = pretrain["inputs"]
    assert web_v2["split"] == {"train": {"ratio": 0.98}, "validation": {"ratio": 0.02}}
    assert web_v2["source"] is None and heldout["split"] is None and heldout["source"] is None
    assert web_v2["derived_from"][0]["source"] == {
        "uri": "https://example.org/crawl/2025-12/",
        "obtained_by": "crawl",
        "licence": "CC-BY-4.0",
        "compliance_note": "robots.txt honoured",
    }
    assert pretrain["resumed_from"] == [
        {
            "id": f"checkpoint:{p}-demo-pretrain-001/1000",
            "step": 1000,
            "epoch": 0,
            "uri": "s3://demo/ckpt/pt/1000/",
            "checksum": SHA,
            "status": "available",
            "placeholder": False,
            "run": f"run:{p}-demo-pretrain-001",
        }
    ]
    assert pretrain["base"] is None
    json.dumps(recipe)  # one JSON document


def test_reproduce_a_checkpoint_keeps_only_the_resumes_before_it(
    neo4j_driver: Driver, demo: str
) -> None:
    recipes = Recipes(neo4j_readers(neo4j_driver).recipes)
    late = recipes.reproduce(f"checkpoint:{demo}-demo-pretrain-001/2000", EVERYTHING)
    early = recipes.reproduce(f"checkpoint:{demo}-demo-pretrain-001/1000", EVERYTHING)

    assert late is not None and early is not None
    assert late["target"]["step"] == 2000 and late["exported_from"] is None
    assert [c["step"] for c in late["run"]["resumed_from"]] == [1000]
    assert early["run"]["resumed_from"] == []
    assert early["datasets"] == sorted(
        _dataset(demo, n, v)
        for n, v in [("web-corpus", "v2"), ("web-corpus", "v1"), ("heldout", "v1")]
    )
    assert late["gaps"] == []


def test_reproduce_missing_unreadable_and_wrong_kind(neo4j_driver: Driver, demo: str) -> None:
    recipes = Recipes(neo4j_readers(neo4j_driver).recipes)
    target = f"model:{demo}/chat-1b@1.0.0"

    assert recipes.reproduce(f"model:{demo}/nope@9", EVERYTHING) is None
    assert recipes.reproduce(target, Scope(frozenset({"another-project"}))) is None
    assert recipes.reproduce(target, Scope(frozenset({demo}))) is not None
    with pytest.raises(InvalidArgumentError):
        recipes.reproduce(f"run:{demo}-demo-pretrain-001", EVERYTHING)


def test_reproduce_flags_what_is_missing(neo4j_driver: Driver, project: str) -> None:
    run = f"run:{project}-never-started"
    payload = REGISTRY.resolve("model.version.registered", 1).model_fields["payload"].annotation
    assert payload is not None
    event = REGISTRY.resolve("model.version.registered", 1).create(
        project=project,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=payload.model_validate({"name": "orphan", "version": "1", "produced_by_run": run}),
        occurred_at=datetime(2026, 2, 1, tzinfo=UTC),
    )
    assert isinstance(event, Event)
    GraphWriter(neo4j_driver).write([project_event(event)])

    recipe = Recipes(neo4j_readers(neo4j_driver).recipes).reproduce(
        f"model:{project}/orphan@1", EVERYTHING
    )

    assert recipe is not None
    assert recipe["run"]["placeholder"] is True
    issues = {(g["at"], g["issue"].split(":")[0]) for g in recipe["gaps"]}
    assert issues == {
        (f"model:{project}/orphan@1", "no checkpoint recorded as exported from"),
        (run, "placeholder"),
        (run, "no code commit recorded"),
        (run, "no environment recorded"),
        (run, "no input datasets recorded"),
    }


def test_cli_reproduce_prints_the_recipe_as_json(neo4j_endpoint: Any, demo: str) -> None:
    env = {
        **os.environ,
        "PROVGRAPH_NEO4J_URI": neo4j_endpoint.uri,
        "PROVGRAPH_NEO4J_USER": neo4j_endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j_endpoint.password,
    }
    target = f"model:{demo}/chat-1b@1.0.0"
    done = subprocess.run(
        [sys.executable, "-m", "provgraph.cli", "reproduce", target],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    recipe = json.loads(done.stdout)
    assert recipe["target"]["id"] == target
    assert recipe["run"]["base"]["id"] == f"model:{demo}/base-1b@1.0.0"

    missing = subprocess.run(
        [sys.executable, "-m", "provgraph.cli", "reproduce", f"model:{demo}/nope@1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 1
    assert "not_found" in missing.stderr
