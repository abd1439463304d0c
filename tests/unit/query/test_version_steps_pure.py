"""A dataset version step opened (recipes/version_steps.py): the pairs diff finds in its
inputs, each version's recorded facts side by side, and their text."""

from __future__ import annotations

from typing import Any

from provgraph.query.recipes.version_steps import (
    FACTS,
    open_steps,
    step_lines,
    version_facts,
    version_pairs,
)
from provgraph.schemas.storage import encode_json, json_key


def _version(id: str, **props: Any) -> dict[str, Any]:
    stored: dict[str, Any] = {"id": id}
    for name, value in props.items():
        if name in ("cleaning_rules", "split", "quality_gates"):
            stored[json_key(name)] = encode_json(value)
        else:
            stored[name] = value
    return stored


def test_pairs_are_versions_of_one_dataset_per_role() -> None:
    inputs = {
        "train": {
            "added": ["dataset:p/web@v3", "dataset:p/web@v2", "dataset:p/new@v1"],
            "removed": ["dataset:p/web@v1", "dataset:p/old@v1", "dataset:p/web@v0"],
        },
        "eval": {"added": ["dataset:p/e@v2"], "removed": []},
        "validation": {"added": ["dataset:p/h@v2"], "removed": ["dataset:p/h@v1"]},
    }
    found = [(p["role"], p["dataset"], p["a"], p["b"]) for p in version_pairs(inputs)]
    assert found == [
        ("train", "dataset:p/web", "dataset:p/web@v0", "dataset:p/web@v2"),
        ("train", "dataset:p/web", "dataset:p/web@v1", "dataset:p/web@v3"),
        ("validation", "dataset:p/h", "dataset:p/h@v1", "dataset:p/h@v2"),
    ]
    assert version_pairs({}) == []
    # Another dataset in, one out: no step (the inputs line says so already).
    assert (
        version_pairs({"train": {"added": ["dataset:p/a@v1"], "removed": ["dataset:p/b@v1"]}}) == []
    )


def test_facts_of_a_version_and_of_one_that_cannot_be_read() -> None:
    props = _version(
        "dataset:p/web@v2",
        change_note="stricter dedup",
        cleaning_rules=[{"kind": "dedup", "name": "minhash", "params": {"threshold": 0.8}}],
        split={"train": {"ratio": 0.9}},
        record_count=900,
        source_uri="https://crawl.example.org",
        source_licence=None,
    )
    mix = [
        {"src": "dataset:p/web@v2", "dst": "dataset:p/raw@v1", "transform": "filter", "weight": 0.7}
    ]
    facts = version_facts(props, mix)
    assert list(facts) == list(FACTS)
    assert facts["cleaning_rules"] == [
        {"kind": "dedup", "name": "minhash", "params": {"threshold": 0.8}}
    ]
    assert facts["split"] == {"train": {"ratio": 0.9}}
    assert facts["mix"] == [
        {"dataset_version": "dataset:p/raw@v1", "transform": "filter", "weight": 0.7}
    ]
    assert facts["source"] == {"uri": "https://crawl.example.org"}
    assert (facts["quality_gates"], facts["checksum"]) == (None, None)
    assert version_facts(None, []) == dict.fromkeys(FACTS)


def test_a_step_side_by_side_with_what_differs_marked() -> None:
    v1 = _version(
        "dataset:p/web@v1",
        cleaning_rules=[{"kind": "dedup", "name": "minhash", "params": {"threshold": 0.9}}],
        split={"train": {"ratio": 0.9}, "test": {"ratio": 0.1}},
        record_count=1000,
        checksum="sha256:a",
    )
    v2 = _version(
        "dataset:p/web@v2",
        change_note="stricter dedup",
        cleaning_rules=[
            {"kind": "dedup", "name": "minhash", "params": {"threshold": 0.8}},
            {"kind": "normalize", "name": "nfc", "params": {}},
        ],
        split={"test": {"ratio": 0.1}, "train": {"ratio": 0.9}},
        record_count=900,
        checksum="sha256:a",
    )
    edges = [
        {
            "src": "dataset:p/web@v2",
            "dst": "dataset:p/raw@v1",
            "transform": "filter",
            "weight": 0.7,
        },
        {"src": "dataset:p/raw@v1", "dst": "dataset:p/crawl@v1", "transform": "x", "weight": None},
    ]
    pair = {"role": "train", "dataset": "dataset:p/web", "a": v1["id"], "b": v2["id"]}
    [step] = open_steps([pair], [v1, v2, {"id": "dataset:p/raw@v1"}], edges)
    assert step["readable"] == {"a": True, "b": True}
    assert [(f["name"], f["changed"]) for f in step["facts"]] == [
        ("change_note", True),
        ("cleaning_rules", True),
        ("split", False),
        ("mix", True),
        ("record_count", True),
        ("checksum", False),
    ]
    assert step["changed"] == ["change_note", "cleaning_rules", "mix", "record_count"]
    assert step_lines([step]) == [
        "  dataset dataset:p/web (train): dataset:p/web@v1 -> dataset:p/web@v2: "
        "change_note, cleaning_rules, mix, record_count",
        "   * change_note: - | stricter dedup",
        '   * cleaning_rules: dedup minhash {"threshold": 0.9} | '
        'dedup minhash {"threshold": 0.8}; normalize nfc',
        '     split: {"test": {"ratio": 0.1}, "train": {"ratio": 0.9}} | '
        '{"test": {"ratio": 0.1}, "train": {"ratio": 0.9}}',
        "   * mix: - | dataset:p/raw@v1 x0.7 (filter)",
        "   * record_count: 1000 | 900",
        "     checksum: sha256:a | sha256:a",
    ]
    # b cannot be read (another project, deleted from sight): its side is empty.
    [hidden] = open_steps([pair], [v1], edges)
    assert hidden["readable"] == {"a": True, "b": False}
    assert all(f["b"] is None for f in hidden["facts"])
