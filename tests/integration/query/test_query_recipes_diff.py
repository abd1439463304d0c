"""diff against real Neo4j: two runs aspect by aspect, and two model versions whose difference
started two levels up their base-model chain."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver
from support.stories import story_event

from provgraph.core.errors import NotFoundError
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.service import Recipes
from provgraph.schemas import Event

EVERYTHING = Scope.everything()
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _event(project: str, event_type: str, payload: dict[str, Any], minute: int) -> Event:
    return story_event(project, event_type, payload, T0 + timedelta(minutes=minute))


def _write(driver: Driver, project: str, steps: list[tuple[str, dict[str, Any]]]) -> None:
    events = [_event(project, t, p, i) for i, (t, p) in enumerate(steps)]
    GraphWriter(driver).write([project_event(e) for e in events])


def _env(key: str, torch: str) -> tuple[str, dict[str, Any]]:
    image = {"name": "registry.example.org/trainer", "tag": key}
    packages = {"torch": torch, "numpy": "2.1.3"}
    return ("environment.snapshot.recorded", {"key": key, "image": image, "packages": packages})


def _ds(name: str, version: str) -> tuple[str, dict[str, Any]]:
    uri = f"s3://bucket/{name}/{version}/"
    return ("dataset.version.created", {"name": name, "version": version, "storage_uri": uri})


def _run(
    p: str,
    key: str,
    *,
    params: dict[str, Any],
    commit: str,
    env: str,
    train: str,
    base: str | None = None,
    metrics: dict[str, Any] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    started: dict[str, Any] = {
        "run_id": f"{p}-{key}",
        "params": params,
        "code": {"repo": "https://git.example.org/trainer", "commit": commit, "dirty": False},
        "environment": f"environment:{p}/{env}",
        "inputs": [
            {"dataset_version": f"dataset:{p}/{train}", "role": "train"},
            {"dataset_version": f"dataset:{p}/heldout@v1", "role": "validation"},
        ],
    }
    if base is not None:
        started["base_model"] = f"model:{p}/{base}"
    done = {"run_id": f"{p}-{key}", "conclusion": "done", "final_metrics": metrics or {}}
    return [("run.started", started), ("run.completed", done)]


def _model(p: str, name: str, run_key: str) -> tuple[str, dict[str, Any]]:
    return (
        "model.version.registered",
        {"name": name, "version": "1", "produced_by_run": f"run:{p}-{run_key}"},
    )


def test_diff_of_two_runs_names_every_change(neo4j_driver: Driver, project: str) -> None:
    p = project
    _write(
        neo4j_driver,
        p,
        [
            _env("img-a", "2.5.1"),
            _env("img-b", "2.6.0"),
            _ds("web", "v1"),
            _ds("web", "v2"),
            _ds("heldout", "v1"),
            *_run(
                p, "a", params={"lr": 3e-4, "batch_size": 512}, commit="aaa1111", env="img-a",
                train="web@v1", metrics={"loss": 2.0, "acc": 0.5},
            ),
            *_run(
                p, "b", params={"lr": 1e-4, "batch_size": 512, "warmup": 100}, commit="bbb2222",
                env="img-b", train="web@v2", metrics={"loss": 1.5, "acc": 0.5},
            ),
        ],
    )  # fmt: skip
    a, b = f"run:{p}-a", f"run:{p}-b"

    answer = Recipes(neo4j_readers(neo4j_driver).recipes).diff(a, b, EVERYTHING)

    level0 = {
        "level": 0,
        "a": a,
        "b": b,
        "differs": True,
        "aspects": ["params", "inputs", "environment", "code"],
        "summary": "params, inputs, environment, code differ",
    }
    assert answer == {
        "a": a,
        "b": b,
        "kind": "run",
        "runs": {"a": a, "b": b},
        "params": {
            "added": {"warmup": 100},
            "removed": {},
            "changed": {"lr": {"a": 3e-4, "b": 1e-4}},
        },
        "inputs": {"train": {"added": [f"dataset:{p}/web@v2"], "removed": [f"dataset:{p}/web@v1"]}},
        # web v1 -> v2 opened: the two versions recorded nothing else that differs.
        "dataset_versions": [
            {
                "role": "train",
                "dataset": f"dataset:{p}/web",
                "a": f"dataset:{p}/web@v1",
                "b": f"dataset:{p}/web@v2",
                "readable": {"a": True, "b": True},
                "facts": [
                    {
                        "name": "storage_uri",
                        "a": "s3://bucket/web/v1/",
                        "b": "s3://bucket/web/v2/",
                        "changed": True,
                    },
                ],
                "changed": ["storage_uri"],
            }
        ],
        "environment": {
            "a": f"environment:{p}/img-a",
            "b": f"environment:{p}/img-b",
            "image": {
                "a": "registry.example.org/trainer:img-a",
                "b": "registry.example.org/trainer:img-b",
            },
            "packages": {
                "added": {},
                "removed": {},
                "changed": {"torch": {"a": "2.5.1", "b": "2.6.0"}},
            },
            "changes": [
                {"section": "packages", "name": "torch", "change": "changed"}
                | {"a": "2.5.1", "b": "2.6.0"},
                {"section": "image", "name": "image", "change": "changed"}
                | {
                    "a": "registry.example.org/trainer:img-a",
                    "b": "registry.example.org/trainer:img-b",
                },
            ],
            "changed": True,
        },
        "code": {
            "a": {"repo": "https://git.example.org/trainer", "commit": "aaa1111", "dirty": False},
            "b": {"repo": "https://git.example.org/trainer", "commit": "bbb2222", "dirty": False},
            "changed": True,
        },
        "base": {
            "started_from": {"a": None, "b": None},
            "resumed_from": {"a": [], "b": []},
            "changed": False,
        },
        "metrics": {
            "acc": {"a": 0.5, "b": 0.5, "delta": 0.0},
            "loss": {"a": 2.0, "b": 1.5, "delta": -0.5},
        },
        "chain": [level0],
        "first_difference": level0,
    }


def _three_level_chains(p: str) -> list[tuple[str, dict[str, Any]]]:
    """pretrain -> base -> mid-train -> mid -> fine-tune -> chat, twice; only the two
    pretraining runs differ (their learning rate)."""
    steps: list[tuple[str, dict[str, Any]]] = [_env("img", "2.5.1"), _ds("web", "v1")]
    steps.append(_ds("heldout", "v1"))
    for side, lr in (("a", 3e-4), ("b", 1e-4)):
        for key, model, params, base in (
            (f"pre-{side}", f"base-{side}", {"lr": lr}, None),
            (f"mid-{side}", f"mid-{side}", {"lr": 1e-5}, f"base-{side}@1"),
            (f"ft-{side}", f"chat-{side}", {"lr": 1e-6}, f"mid-{side}@1"),
        ):
            steps += _run(
                p, key, params=params, commit="c0ffee1", env="img", train="web@v1", base=base
            )
            steps.append(_model(p, model, key))
    return steps


def test_diff_of_two_models_finds_the_level_where_it_started(
    neo4j_driver: Driver, project: str
) -> None:
    p = project
    _write(neo4j_driver, p, _three_level_chains(p))

    answer = Recipes(neo4j_readers(neo4j_driver).recipes).diff(
        f"model:{p}/chat-a@1", f"model:{p}/chat-b@1", EVERYTHING
    )

    assert answer is not None
    assert answer["kind"] == "model_version"
    assert answer["runs"] == {"a": f"run:{p}-ft-a", "b": f"run:{p}-ft-b"}
    assert answer["params"] == {"added": {}, "removed": {}, "changed": {}}
    assert answer["inputs"] == {}
    assert answer["base"]["started_from"] == {"a": f"model:{p}/mid-a@1", "b": f"model:{p}/mid-b@1"}
    assert [(s["level"], s["a"], s["b"], s["aspects"]) for s in answer["chain"]] == [
        (0, f"run:{p}-ft-a", f"run:{p}-ft-b", []),
        (1, f"run:{p}-mid-a", f"run:{p}-mid-b", []),
        (2, f"run:{p}-pre-a", f"run:{p}-pre-b", ["params"]),
    ]
    first = answer["first_difference"]
    assert (first["level"], first["a"], first["b"]) == (2, f"run:{p}-pre-a", f"run:{p}-pre-b")

    same = Recipes(neo4j_readers(neo4j_driver).recipes).diff(
        f"model:{p}/chat-a@1", f"model:{p}/chat-a@1", EVERYTHING
    )
    assert same is not None and same["first_difference"] is None


def test_diff_refuses_other_kinds_and_names_the_missing_side(
    neo4j_driver: Driver, project: str
) -> None:
    p = project
    run = _run(p, "r", params={}, commit="c1c1c1c", env="img", train="web@v1")
    _write(neo4j_driver, p, [_env("img", "2.5.1"), _ds("web", "v1"), _ds("heldout", "v1"), *run])
    recipes = Recipes(neo4j_readers(neo4j_driver).recipes)

    with pytest.raises(InvalidArgumentError):
        recipes.diff(f"run:{p}-r", f"dataset:{p}/web@v1", EVERYTHING)
    with pytest.raises(InvalidArgumentError):
        recipes.diff(f"dataset:{p}/web@v1", f"dataset:{p}/heldout@v1", EVERYTHING)
    with pytest.raises(NotFoundError) as one_side:
        recipes.diff(f"run:{p}-r", f"run:{p}-missing", EVERYTHING)
    assert one_side.value.message == f"Not found: run:{p}-missing (argument b)."
    assert one_side.value.details == {"missing": {"b": f"run:{p}-missing"}}
    # Unreadable is missing, on both sides.
    with pytest.raises(NotFoundError) as unreadable:
        recipes.diff(f"run:{p}-r", f"run:{p}-r", Scope(frozenset({"elsewhere"})))
    assert unreadable.value.details == {"missing": {"a": f"run:{p}-r", "b": f"run:{p}-r"}}
