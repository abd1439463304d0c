"""`diff` of two runs that used different versions of one dataset opens the versions: both
versions' recorded facts side by side, on a seeded story in Neo4j, through GraphQL and
`provgraph diff`.

The story (project p, from 2026-04-01 00:00; the expected answers below are written from it):

  raw@v1 and forum@v1 are raw data. web@v1 was derived from raw@v1 (transform "filter",
  weight 1.0), cleaned by dedup "minhash" (threshold 0.9), split train 0.9 / test 0.1,
  1,000 records. web@v2 ("stricter dedup, forum data mixed in", previous version v1) was
  mixed from raw@v1 (filter, 0.7) and forum@v1 (filter, 0.3), cleaned by dedup "minhash"
  (threshold 0.8) and normalize "nfc", the same split, 900 records.
  Run a trained on web@v1, run b on web@v2; both validated on held@v1; run c on web@v1
  too.

  diff a b: one step, train web@v1 -> web@v2; change_note, previous_version, cleaning_rules,
  mix, record_count and storage_uri differ, the split does not. diff a c: no step (the same
  version), so no `dataset_versions` in the answer.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_result, provgraph_cli, seed_story

T0 = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
Step = tuple[str, dict[str, Any], float]
SPLIT = {"train": {"ratio": 0.9}, "test": {"ratio": 0.1}}


def _rule(kind: str, name: str, **params: Any) -> dict[str, Any]:
    return {"kind": kind, "name": name, "params": params}


def _created(name: str, version: str, **facts: Any) -> Step:
    payload = {"name": name, "version": version, "storage_uri": f"s3://{name}/{version}/", **facts}
    return ("dataset.version.created", payload, 0)


def _run(p: str, key: str, train: str, hour: float) -> list[Step]:
    inputs = [
        {"dataset_version": f"dataset:{p}/{train}", "role": "train"},
        {"dataset_version": f"dataset:{p}/held@v1", "role": "validation"},
    ]
    return [
        ("run.started", {"run_id": f"{p}-{key}", "inputs": inputs}, hour),
        ("run.completed", {"run_id": f"{p}-{key}"}, hour + 1),
    ]


def story(p: str) -> list[Step]:
    def part(name: str, weight: float) -> dict[str, Any]:
        return {"dataset_version": f"dataset:{p}/{name}", "transform": "filter", "weight": weight}

    stricter = [_rule("dedup", "minhash", threshold=0.8), _rule("normalize", "nfc")]
    return [
        _created("raw", "v1"),
        _created("forum", "v1"),
        _created("held", "v1"),
        _created("web", "v1", derived_from=[part("raw@v1", 1.0)], split=SPLIT,
                 cleaning_rules=[_rule("dedup", "minhash", threshold=0.9)], record_count=1000),
        _created("web", "v2", derived_from=[part("raw@v1", 0.7), part("forum@v1", 0.3)],
                 split=SPLIT, change_note="stricter dedup, forum data mixed in",
                 previous_version="v1", record_count=900,
                 cleaning_rules=stricter),
        *_run(p, "a", "web@v1", 1),
        *_run(p, "b", "web@v2", 3),
        *_run(p, "c", "web@v1", 5),
    ]  # fmt: skip


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    seed_story(neo4j_driver, project, story(project), T0)
    return project


def _diff(driver: Driver, a: str, b: str) -> dict[str, Any]:
    result = graphql_result(
        driver, "query($a: ID!, $b: ID!) { diff(a: $a, b: $b) }", {"a": a, "b": b}
    )
    assert result.errors is None, result.errors
    answer: dict[str, Any] = result.data["diff"]
    return answer


def test_the_two_versions_side_by_side(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _diff(neo4j_driver, f"run:{p}-a", f"run:{p}-b")
    v1, v2 = f"dataset:{p}/web@v1", f"dataset:{p}/web@v2"
    assert answer["inputs"] == {"train": {"added": [v2], "removed": [v1]}}
    [step] = answer["dataset_versions"]
    assert (step["role"], step["dataset"], step["a"], step["b"]) == (
        "train",
        f"dataset:{p}/web",
        v1,
        v2,
    )
    assert step["readable"] == {"a": True, "b": True}
    facts = {f["name"]: (f["a"], f["b"], f["changed"]) for f in step["facts"]}
    raw, forum = f"dataset:{p}/raw@v1", f"dataset:{p}/forum@v1"
    assert facts == {
        "change_note": (None, "stricter dedup, forum data mixed in", True),
        "previous_version": (None, "v1", True),
        "cleaning_rules": (
            [_rule("dedup", "minhash", threshold=0.9)],
            [_rule("dedup", "minhash", threshold=0.8), _rule("normalize", "nfc")],
            True,
        ),
        "split": (SPLIT, SPLIT, False),
        "mix": (
            [{"dataset_version": raw, "transform": "filter", "weight": 1.0}],
            [{"dataset_version": forum, "transform": "filter", "weight": 0.3},
             {"dataset_version": raw, "transform": "filter", "weight": 0.7}],
            True,
        ),
        "record_count": (1000, 900, True),
        "storage_uri": ("s3://web/v1/", "s3://web/v2/", True),
    }  # fmt: skip
    assert [f["name"] for f in step["facts"]] == [
        "change_note", "previous_version", "cleaning_rules", "split", "mix", "record_count",
        "storage_uri",
    ]  # fmt: skip
    assert step["changed"] == [
        "change_note", "previous_version", "cleaning_rules", "mix", "record_count", "storage_uri",
    ]  # fmt: skip


def test_no_step_when_the_runs_used_the_same_versions(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    answer = _diff(neo4j_driver, f"run:{p}-a", f"run:{p}-c")
    assert answer["inputs"] == {}
    assert "dataset_versions" not in answer  # other diffs' answers are as they were


def test_the_command_line_shows_the_step(neo4j_endpoint: Any, seeded: str) -> None:
    p = seeded
    text = provgraph_cli(neo4j_endpoint, "diff", f"run:{p}-a", f"run:{p}-b")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    head = lines.index(
        f"  dataset dataset:{p}/web (train): dataset:{p}/web@v1 -> dataset:{p}/web@v2: "
        "change_note, previous_version, cleaning_rules, mix, record_count, storage_uri"
    )
    assert lines[head + 1 : head + 8] == [
        "   * change_note: - | stricter dedup, forum data mixed in",
        "   * previous_version: - | v1",
        '   * cleaning_rules: dedup minhash {"threshold": 0.9} | '
        'dedup minhash {"threshold": 0.8}; normalize nfc',
        '     split: {"test": {"ratio": 0.1}, "train": {"ratio": 0.9}} | '
        '{"test": {"ratio": 0.1}, "train": {"ratio": 0.9}}',
        f"   * mix: dataset:{p}/raw@v1 x1 (filter) | "
        f"dataset:{p}/forum@v1 x0.3 (filter); dataset:{p}/raw@v1 x0.7 (filter)",
        "   * record_count: 1000 | 900",
        "   * storage_uri: s3://web/v1/ | s3://web/v2/",
    ]
    as_json = provgraph_cli(neo4j_endpoint, "diff", f"run:{p}-a", f"run:{p}-b", "--json")
    assert as_json.returncode == 0, as_json.stderr
    [step] = json.loads(as_json.stdout)["dataset_versions"]
    assert step["changed"][0] == "change_note" and step["b"] == f"dataset:{p}/web@v2"
