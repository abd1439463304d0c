"""Every recorded element of an environment counts: `diff`, `best`'s "what changed" and the
reproduce recipe see a new driver, CUDA, cuDNN, NCCL, framework, system setting, base image or
Python as the change it is; a new snapshot id with the same contents is still no change. The
reproduce recipe carries every element, and each input's split and source.

The graph: model `chat` with versions 1 (made by run r1 in snapshot `old`) and 2 (run r2 in
`new`), both evaluated on `eval@v1` (acc 0.5 and 0.6); both runs train on `web@v1` (with a
split and a source) with the same params and code. `new` differs from `old` in one element per
case below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from fakes import FakeBestEnvReads, FakeRecipeReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.recipes.best_env_service import BestAndEnvironments
from provgraph.query.recipes.best_model import render_best
from provgraph.query.recipes.diff_render import render_diff
from provgraph.query.recipes.service import Recipes
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import dotted, encode_json, record, with_json

pytestmark = pytest.mark.unit

SHA = "sha256:" + "ab" * 32
# The recorded contents of `old`, as `environment.snapshot.recorded` gives them.
OLD: dict[str, Any] = {
    "packages": {"numpy": "2.1.3", "torch": "2.5.1"},
    "frameworks": {"torch": "2.5.1"},
    "parallel_libs": {"nccl": "2.18.1"},
    "compute_libs": {"cuda": "12.1", "cudnn": "8.9.7"},
    "system": {"numa": {"balancing": "off"}, "shm_gb": 64},
    "python_version": "3.11.9",
    "driver_version": "535.104",
    "image": {"name": "registry.example.org/trainer", "tag": "1", "digest": SHA},
    "base_image": {"name": "nvidia/cuda", "tag": "12.1-devel"},
}
_FLAT = {
    "packages": "package",
    "frameworks": "framework",
    "parallel_libs": "parallel_lib",
    "compute_libs": "compute_lib",
    "system": "system",
}
SPLIT = {"train": {"count": 900, "ratio": 0.9}, "validation": {"count": 100, "ratio": 0.1}}
SOURCE = {
    "uri": "https://crawl.example.org/2026-01",
    "obtained_by": "crawler v3",
    "licence": "CC-BY-4.0",
}

# One case per element: the contents of `new`, and the one change `diff` must name
# (section, name, a, b).
CASES: dict[str, tuple[dict[str, Any], tuple[str, str, Any, Any]]] = {
    "driver": (
        {"driver_version": "550.54"},
        ("driver_version", "driver_version", "535.104", "550.54"),
    ),
    "cuda": (
        {"compute_libs": {"cuda": "12.4", "cudnn": "8.9.7"}},
        ("compute_libs", "cuda", "12.1", "12.4"),
    ),
    "cudnn": (
        {"compute_libs": {"cuda": "12.1", "cudnn": "9.1.0"}},
        ("compute_libs", "cudnn", "8.9.7", "9.1.0"),
    ),
    "nccl": (
        {"parallel_libs": {"nccl": "2.21.5"}},
        ("parallel_libs", "nccl", "2.18.1", "2.21.5"),
    ),
    "framework": (
        {"frameworks": {"torch": "2.6.0"}},
        ("frameworks", "torch", "2.5.1", "2.6.0"),
    ),
    "system": (
        {"system": {"numa": {"balancing": "on"}, "shm_gb": 64}},
        ("system", "numa.balancing", "off", "on"),
    ),
    "base image": (
        {"base_image": {"name": "nvidia/cuda", "tag": "12.4-devel"}},
        ("base_image", "base_image", "nvidia/cuda:12.1-devel", "nvidia/cuda:12.4-devel"),
    ),
    "python": (
        {"python_version": "3.12.3"},
        ("python_version", "python_version", "3.11.9", "3.12.3"),
    ),
}


def _stored(env: Mapping[str, Any]) -> dict[str, Any]:
    """An environment's contents in their stored form, as the projection writes them."""
    props: dict[str, Any] = {"python_version": env["python_version"]}
    props["driver_version"] = env["driver_version"]
    props |= record("image", env["image"]) | record("base_image", env["base_image"])
    for section, prefix in _FLAT.items():
        props |= with_json(section, env[section], prefix)
    return {k: v for k, v in props.items() if v is not None}


def _graph(new: Mapping[str, Any]) -> KeyedGraph:
    g = KeyedGraph("p", "q")
    g.add("old", Label.ENVIRONMENT, "environment:{a}/old", key="old", **_stored(OLD))
    g.add("new", Label.ENVIRONMENT, "environment:{a}/new", key="new", **_stored({**OLD, **new}))
    web = with_json("split", SPLIT, "split") | {f"source_{k}": v for k, v in SOURCE.items()}
    g.add("web", Label.DATASET_VERSION, "dataset:{a}/web@v1", name="web", version="v1", **web)
    g.add("eval", Label.DATASET_VERSION, "dataset:{a}/eval@v1", name="eval", version="v1")
    g.add("m", Label.MODEL, "model:{a}/chat", name="chat")
    code = record("code", {"repo": "https://git.example.org/trainer", "commit": "aaa1111"})
    for n, env, acc in ((1, "old", 0.5), (2, "new", 0.6)):
        params = {"params_json": encode_json({"lr": 0.001})}
        g.add(f"r{n}", Label.RUN, f"run:{{a}}-r{n}", name=f"r{n}", **params, **code)
        g.link(f"r{n}", Rel.USED, "web", role="train")
        g.link(f"r{n}", Rel.RAN_IN, env)
        g.add(f"v{n}", Label.MODEL_VERSION, f"model:{{a}}/chat@{n}", name="chat", version=f"{n}")
        g.link(f"v{n}", Rel.VERSION_OF, "m")
        g.link(f"v{n}", Rel.GENERATED_BY, f"r{n}")
        g.add(f"e{n}", Label.EVALUATION, "evaluation:{uuid}", **{dotted("metric", "acc"): acc})
        g.link(f"e{n}", Rel.EVALUATED, f"v{n}")
        g.link(f"e{n}", Rel.USED, "eval", role="eval")
    return g


def _recipes(g: KeyedGraph) -> Recipes:
    return Recipes(FakeRecipeReads(list(g.nodes.values()), g.edges))


def _rows(found: list[dict[str, Any]]) -> list[tuple[str, str, Any, Any]]:
    return [(c["section"], c["name"], c["a"], c["b"]) for c in found]


@pytest.mark.parametrize("case", CASES)
def test_diff_names_the_one_element_that_changed(case: str) -> None:
    new, change = CASES[case]
    g = _graph(new)
    scope = g.scopes()[0]
    diff = _recipes(g).diff(g.id("r1"), g.id("r2"), scope)
    env = diff["environment"]
    assert env["changed"] is True
    assert _rows(env["changes"]) == [change]
    assert diff["chain"][0]["aspects"] == ["environment"]  # nothing else differs
    # Neither the image nor the packages moved: they alone would have said "no change".
    assert env["image"]["a"] == env["image"]["b"]
    assert env["packages"] == {"added": {}, "removed": {}, "changed": {}}
    section, name, a, b = change
    label = section if section == name else f"{section}.{name}"
    assert f"    {label}: {a} -> {b}" in render_diff(diff).splitlines()


def test_a_new_snapshot_with_the_same_contents_is_no_change() -> None:
    g = _graph({})
    diff = _recipes(g).diff(g.id("r1"), g.id("r2"), g.scopes()[0])
    env = diff["environment"]
    assert (env["a"], env["b"]) == (g.id("old"), g.id("new"))
    assert env["changes"] == [] and env["changed"] is False
    assert diff["chain"][0]["differs"] is False
    assert render_diff(diff).splitlines()[1:] == [
        "  level 0: same params, inputs, environment, code, base"
    ]


def test_a_run_without_an_environment_beside_one_with_is_a_change() -> None:
    g = _graph({})
    g.edges = [e for e in g.edges if not (e.src == g.id("r1") and e.type == Rel.RAN_IN)]
    env = _recipes(g).diff(g.id("r1"), g.id("r2"), g.scopes()[0])["environment"]
    assert env["changed"] is True and env["a"] is None
    assert ("driver_version", "driver_version", None, "535.104") in _rows(env["changes"])


@pytest.mark.parametrize("case", ["driver", "nccl", "base image"])
def test_bests_what_changed_names_the_element(case: str) -> None:
    new, (section, name, a, b) = CASES[case]
    g = _graph(new)
    nodes, scope = list(g.nodes.values()), g.scopes()[0]
    questions = BestAndEnvironments(FakeBestEnvReads(nodes, g.edges), _recipes(g))
    answer = questions.best(g.id("m"), "acc", scope, higher_is_better=True)
    assert answer is not None and answer["best"]["version"] == g.id("v2")
    assert answer["diff"]["chain"][0]["aspects"] == ["environment"]
    lines = render_best(answer).splitlines()
    label = section if section == name else f"{section}.{name}"
    at = lines.index(f"  environment: {g.id('old')} -> {g.id('new')}")
    assert lines[at + 1 :] == [f"    {label}: {a} -> {b}"]


def test_the_recipe_carries_every_element_and_each_inputs_split_and_source() -> None:
    g = _graph({})
    recipe = _recipes(g).reproduce(g.id("v2"), g.scopes()[0])
    assert recipe is not None
    run = recipe["run"]
    assert run["environment"] == {
        "id": g.id("new"),
        "image": OLD["image"],
        "image_ref": f"registry.example.org/trainer:1@{SHA}",
        "base_image": {"name": "nvidia/cuda", "tag": "12.1-devel", "digest": None},
        "base_image_ref": "nvidia/cuda:12.1-devel",
        "python_version": "3.11.9",
        "driver_version": "535.104",
        "packages": OLD["packages"],
        "frameworks": OLD["frameworks"],
        "parallel_libs": OLD["parallel_libs"],
        "compute_libs": OLD["compute_libs"],
        "system": OLD["system"],
        "placeholder": False,
    }
    [web] = run["inputs"]
    assert (web["role"], web["id"]) == ("train", g.id("web"))
    assert web["split"] == SPLIT
    assert web["source"] == {**SOURCE, "compliance_note": None}


def test_the_recipe_says_when_no_split_or_source_was_recorded() -> None:
    g = _graph({})
    g.nodes["web"] = replace(g.nodes["web"], props={"name": "web", "version": "v1"})
    recipe = _recipes(g).reproduce(g.id("v1"), g.scopes()[0])
    assert recipe is not None
    [web] = recipe["run"]["inputs"]
    assert web["split"] is None and web["source"] is None
