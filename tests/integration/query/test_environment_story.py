"""The environment counts everywhere, on a seeded story in Neo4j: `diff` through GraphQL and
through the CLI's `--json` and text, and `reproduce` through GraphQL. Every expected answer
below is read off the story, not off the code.

The story (project = the test's own):
- dataset versions `web@v1` (split train 900 / validation 100, source
  https://crawl.example.org/2026-01 obtained by "crawler v3" under CC-BY-4.0) and `heldout@v1`
  (no split, no source);
- snapshots `jan` and `feb` of the same image trainer:1, base image nvidia/cuda:12.4-devel,
  Python 3.11.9, torch 2.5.1, CUDA 12.4, numa balancing off, the same packages; they differ
  only in the driver (550.54 -> 560.28) and NCCL (2.21.5 -> 2.23.4);
- runs r1 (in jan) and r2 (in feb): the same params, code and inputs (train web@v1,
  validation heldout@v1); r2 made model `chat@1`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_data, story_event
from support.stories import provgraph_cli as _cli

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
SPLIT = {"train": {"count": 900}, "validation": {"count": 100}}
SOURCE = {
    "uri": "https://crawl.example.org/2026-01",
    "obtained_by": "crawler v3",
    "licence": "CC-BY-4.0",
}


def _env(key: str, driver: str, nccl: str) -> tuple[str, dict[str, Any]]:
    payload = {
        "key": key,
        "image": {"name": "registry.example.org/trainer", "tag": "1"},
        "base_image": {"name": "nvidia/cuda", "tag": "12.4-devel"},
        "python_version": "3.11.9",
        "frameworks": {"torch": "2.5.1"},
        "packages": {"torch": "2.5.1", "numpy": "2.1.3"},
        "compute_libs": {"cuda": "12.4"},
        "system": {"numa": {"balancing": "off"}},
        "driver_version": driver,
        "parallel_libs": {"nccl": nccl},
    }
    return ("environment.snapshot.recorded", payload)


def _run(p: str, key: str, env: str) -> list[tuple[str, dict[str, Any]]]:
    started = {
        "run_id": f"{p}-{key}",
        "params": {"lr": 3e-4},
        "code": {"repo": "https://git.example.org/trainer", "commit": "aaa1111", "dirty": False},
        "environment": f"environment:{p}/{env}",
        "inputs": [
            {"dataset_version": f"dataset:{p}/web@v1", "role": "train"},
            {"dataset_version": f"dataset:{p}/heldout@v1", "role": "validation"},
        ],
    }
    return [("run.started", started), ("run.completed", {"run_id": f"{p}-{key}"})]


def _story(p: str) -> list[tuple[str, dict[str, Any]]]:
    web = {"name": "web", "version": "v1", "storage_uri": "s3://b/web/v1/"}
    heldout = {"name": "heldout", "version": "v1", "storage_uri": "s3://b/heldout/v1/"}
    return [
        ("dataset.version.created", {**web, "split": SPLIT, "source": SOURCE}),
        ("dataset.version.created", heldout),
        _env("jan", "550.54", "2.21.5"),
        _env("feb", "560.28", "2.23.4"),
        *_run(p, "r1", "jan"),
        *_run(p, "r2", "feb"),
        (
            "model.version.registered",
            {"name": "chat", "version": "1", "produced_by_run": f"run:{p}-r2"},
        ),
    ]


@pytest.fixture()
def story(neo4j_driver: Driver, project: str) -> str:
    events = [
        story_event(project, t, payload, T0 + timedelta(minutes=i))
        for i, (t, payload) in enumerate(_story(project))
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


# The changes from jan to feb, and nothing else: the image and packages are the same.
CHANGES = [
    {"section": "parallel_libs", "name": "nccl", "change": "changed", "a": "2.21.5", "b": "2.23.4"},
    {
        "section": "driver_version",
        "name": "driver_version",
        "change": "changed",
        "a": "550.54",
        "b": "560.28",
    },
]


def _check_environment(env: dict[str, Any], p: str) -> None:
    assert (env["a"], env["b"]) == (f"environment:{p}/jan", f"environment:{p}/feb")
    assert env["changes"] == CHANGES
    assert env["changed"] is True
    assert env["packages"] == {"added": {}, "removed": {}, "changed": {}}


def test_diff_through_graphql_names_the_driver_and_nccl(neo4j_driver: Driver, story: str) -> None:
    p = story
    data = graphql_data(neo4j_driver)(f'{{ diff(a: "run:{p}-r1", b: "run:{p}-r2") }}')
    diff = data["diff"]
    _check_environment(diff["environment"], p)
    assert diff["chain"][0]["aspects"] == ["environment"]
    assert diff["first_difference"]["summary"] == "environment differ"


def test_diff_through_the_cli(neo4j_endpoint: Any, story: str) -> None:
    p = story
    found = _cli(neo4j_endpoint, "diff", f"run:{p}-r1", f"run:{p}-r2", "--json")
    assert found.returncode == 0, found.stderr
    diff = json.loads(found.stdout)
    _check_environment(diff["environment"], p)
    assert diff["chain"][0]["aspects"] == ["environment"]
    text = _cli(neo4j_endpoint, "diff", f"run:{p}-r1", f"run:{p}-r2")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines() == [
        f"run:{p}-r1 -> run:{p}-r2",
        "  level 0: environment differ",
        f"  environment: environment:{p}/jan -> environment:{p}/feb",
        "    parallel_libs.nccl: 2.21.5 -> 2.23.4",
        "    driver_version: 550.54 -> 560.28",
    ]


def test_reproduce_through_graphql_shows_every_element_split_and_source(
    neo4j_driver: Driver, story: str
) -> None:
    p = story
    data = graphql_data(neo4j_driver)(f'{{ reproduce(id: "model:{p}/chat@1") }}')
    run = data["reproduce"]["run"]
    assert run["id"] == f"run:{p}-r2"
    env = run["environment"]
    assert env["id"] == f"environment:{p}/feb"
    assert env["driver_version"] == "560.28"
    assert env["parallel_libs"] == {"nccl": "2.23.4"}
    assert env["compute_libs"] == {"cuda": "12.4"}
    assert env["system"] == {"numa": {"balancing": "off"}}
    assert env["frameworks"] == {"torch": "2.5.1"}
    assert env["python_version"] == "3.11.9"
    assert env["base_image_ref"] == "nvidia/cuda:12.4-devel"
    assert env["image_ref"] == "registry.example.org/trainer:1"
    inputs = {i["role"]: i for i in run["inputs"]}
    assert inputs["train"]["id"] == f"dataset:{p}/web@v1"
    assert inputs["train"]["split"] == SPLIT
    assert inputs["train"]["source"] == {**SOURCE, "compliance_note": None}
    assert inputs["validation"]["id"] == f"dataset:{p}/heldout@v1"
    assert inputs["validation"]["split"] is None
    assert inputs["validation"]["source"] is None
