"""The pure part of `env-diff` and `runs-with`: section by section changes, the chain's steps,
package specs and spellings, and the text answers."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.env_diff import (
    env_diff_answer,
    lookup_keys,
    parse_spec,
    render_env_diff,
    render_runs_with,
    runs_with_answer,
)

# Stored properties, as the projection writes them.
OLD = {
    "id": "environment:p/base",
    "python_version": "3.11.9",
    "driver_version": "550.54",
    "image_name": "trainer",
    "image_tag": "1",
    "packages_json": '{"numpy":"2.1.3","torch":"2.5.1","tqdm":"4.66.0"}',
    "frameworks_json": '{"torch":"2.5.1"}',
    "system_json": '{"nccl":{"algo":"ring"},"shm_gb":64}',
}
NEW = {
    "id": "environment:p/next",
    "python_version": "3.11.9",
    "driver_version": "560.28",
    "image_name": "trainer",
    "image_tag": "2",
    "packages_json": '{"numpy":"2.1.3","torch":"2.6.0","flash-attn":"2.7.0"}',
    "frameworks_json": '{"torch":"2.6.0"}',
    "system_json": '{"nccl":{"algo":"tree"},"shm_gb":64}',
}
# Expected from the two snapshots above, in section order then by name.
CHANGES = [
    {"section": "packages", "name": "flash-attn", "change": "added", "a": None, "b": "2.7.0"},
    {"section": "packages", "name": "torch", "change": "changed", "a": "2.5.1", "b": "2.6.0"},
    {"section": "packages", "name": "tqdm", "change": "removed", "a": "4.66.0", "b": None},
    {"section": "frameworks", "name": "torch", "change": "changed", "a": "2.5.1", "b": "2.6.0"},
    {"section": "system", "name": "nccl.algo", "change": "changed", "a": "ring", "b": "tree"},
    {
        "section": "driver_version",
        "name": "driver_version",
        "change": "changed",
        "a": "550.54",
        "b": "560.28",
    },
    {"section": "image", "name": "image", "change": "changed", "a": "trainer:1", "b": "trainer:2"},
]


def test_unrelated_snapshots_are_compared_without_a_chain() -> None:
    answer = env_diff_answer(OLD, NEW, None)
    assert answer["changes"] == CHANGES
    assert (answer["same"], answer["related"], answer["chain"]) == (False, False, None)


def test_the_chain_is_walked_step_by_step() -> None:
    mid = {**OLD, "id": "environment:p/mid", "driver_version": "560.28"}
    path = {
        "nodes": [OLD, mid, NEW],
        # mid BASED_ON base, next BASED_ON mid: both steps are "newer".
        "rels": [
            {"src": "environment:p/mid", "dst": "environment:p/base"},
            {"src": "environment:p/next", "dst": "environment:p/mid"},
        ],
    }
    answer = env_diff_answer(OLD, NEW, path)
    assert answer["related"] is True and answer["changes"] == CHANGES
    first, second = answer["chain"]
    assert (first["from"], first["to"], first["relation"]) == (
        "environment:p/base",
        "environment:p/mid",
        "newer",
    )
    assert first["changes"] == [CHANGES[5]]
    assert second["changes"] == [c for i, c in enumerate(CHANGES) if i != 5]
    backwards = env_diff_answer(NEW, OLD, {"nodes": [NEW, mid, OLD], "rels": path["rels"]})
    assert [s["relation"] for s in backwards["chain"]] == ["older", "older"]


def test_same_contents() -> None:
    answer = env_diff_answer(OLD, {**OLD, "id": "environment:p/copy"}, None)
    assert answer["same"] is True and answer["changes"] == []
    assert "same contents" in render_env_diff(answer)


def test_render_env_diff_lists_each_change() -> None:
    text = render_env_diff(env_diff_answer(OLD, NEW, None))
    assert text.splitlines()[0] == "environment:p/base -> environment:p/next"
    assert any(
        line.split() == ["packages", "torch", "changed", "2.5.1", "2.6.0"]
        for line in text.splitlines()
    )
    assert any(
        line.split() == ["packages", "flash-attn", "added", "-", "2.7.0"]
        for line in text.splitlines()
    )
    assert text.endswith("not related by BASED_ON")


def test_parse_spec() -> None:
    assert parse_spec("torch==2.5.1") == ("torch", "2.5.1")
    assert parse_spec(" flash_attn ") == ("flash_attn", None)
    for bad in ("", "torch>=2", "==1.0", "a b"):
        with pytest.raises(InvalidArgumentError):
            parse_spec(bad)


def test_lookup_keys_cover_sections_and_spellings() -> None:
    keys = lookup_keys("Flash_Attn")
    assert keys[:4] == [
        "package.Flash_Attn",
        "package.flash_attn",
        "package.flash-attn",
        "framework.Flash_Attn",
    ]
    assert "compute_lib.flash-attn" in keys and "parallel_lib.flash_attn" in keys
    assert lookup_keys("torch") == [
        "package.torch",
        "framework.torch",
        "parallel_lib.torch",
        "compute_lib.torch",
    ]


def _run_row(n: int, hits: list[dict[str, Any]]) -> dict[str, Any]:
    run = {
        "id": f"run:r{n}",
        "project": "p",
        "name": f"r{n}",
        "run_number": n,
        "status": "completed",
    }
    return {"run": run, "environment": "environment:p/base", "hits": hits, "experiment": None}


def test_runs_with_answer_picks_the_matching_hit_and_cuts_at_the_limit() -> None:
    hits = [
        {"key": "package.torch", "version": "2.5.1"},
        {"key": "framework.torch", "version": "2.6.0"},
    ]
    rows = [_run_row(1, hits), _run_row(2, hits), _run_row(3, hits)]
    answer = runs_with_answer("torch", "2.6.0", "p", rows, 2)
    assert [r["id"] for r in answer["runs"]] == ["run:r1", "run:r2"] and answer["truncated"]
    assert {(r["section"], r["recorded_as"], r["version"]) for r in answer["runs"]} == {
        ("frameworks", "torch", "2.6.0")
    }
    text = render_runs_with(answer)
    assert text.splitlines()[0] == "runs with torch==2.6.0:"
    assert "(the first 2; raise --limit for more)" in text
    assert render_runs_with(runs_with_answer("torch", None, None, [], 5)) == "no run ran with torch"
