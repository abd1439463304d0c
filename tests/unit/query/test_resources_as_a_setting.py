"""Resources (machines, devices per machine, accelerator, parallelism) are a setting: `diff`
names them as a cause and `compare`'s one-change check counts them, each by name; runs of the
same resources get the answers they got before resources were a setting."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.recipes.compare_table import change_text
from provgraph.query.recipes.comparing import changes, row_of
from provgraph.query.recipes.diff_render import diff_lines
from provgraph.query.recipes.diffing import causes, compare, run_facts
from provgraph.query.recipes.resources import resources_of
from provgraph.schemas.storage import encode_json

pytestmark = pytest.mark.unit

PILOT = {"num_nodes": 1, "devices_per_node": 8, "accelerator": "H100", "parallelism": {"data": 8}}
BIG = {
    "num_nodes": 16,
    "devices_per_node": 8,
    "accelerator": "H100",
    "parallelism": {"data": 32, "tensor": 4},
    "extra": {"queue": "large"},
}


def _props(run: str, resources: dict[str, Any] | None) -> dict[str, Any]:
    props: dict[str, Any] = {"id": f"run:{run}", "params_json": encode_json({"lr": 0.0003})}
    if resources is not None:
        props["resources_json"] = encode_json(resources)
    return props


def _diff_record(run: str, resources: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "run": _props(run, resources),
        "inputs": [{"role": "train", "id": "dataset:p/web@v1"}],
        "environments": [{"id": "environment:p/img"}],
        "bases": [],
        "resumes": [],
    }


def _compare_record(run: str, resources: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "run": _props(run, resources),
        "experiment": "experiment:p/x",
        "inputs": [{"role": "train", "id": "dataset:p/web@v1", "gates": None}],
        "environments": [{"id": "environment:p/img"}],
        "bases": [],
        "resumes": [],
    }


def test_resources_are_dotted_names_without_the_free_form_extra() -> None:
    assert resources_of(_props("b", BIG)) == {
        "num_nodes": 16,
        "devices_per_node": 8,
        "accelerator": "H100",
        "parallelism.data": 32,
        "parallelism.tensor": 4,
    }
    assert resources_of(_props("n", None)) == {}


def test_diff_names_changed_resources_as_a_cause_and_lists_each() -> None:
    a, b = run_facts(_diff_record("a", PILOT)), run_facts(_diff_record("b", BIG))
    assert causes(a, b) == ["resources"]
    found = compare(a, b)["resources"]
    assert found == {
        "added": {"parallelism.tensor": 4},
        "removed": {},
        "changed": {"num_nodes": {"a": 1, "b": 16}, "parallelism.data": {"a": 8, "b": 32}},
    }
    assert diff_lines(compare(a, b))[-3:] == [
        "  resources num_nodes: 1 -> 16",
        "  resources parallelism.data: 8 -> 32",
        "  resources parallelism.tensor: added 4",
    ]


@pytest.mark.parametrize("resources", [None, PILOT, {**PILOT, "extra": {"queue": "other"}}])
def test_diff_of_runs_with_the_same_resources_is_the_answer_it_was(
    resources: dict[str, Any] | None,
) -> None:
    a, b = run_facts(_diff_record("a", PILOT)), run_facts(_diff_record("b", resources))
    if resources is None:  # one side recorded none: that is a change of every field
        assert causes(a, b) == ["resources"]
        return
    assert causes(a, b) == []
    assert list(compare(a, b)) == ["params", "inputs", "environment", "code", "base", "metrics"]


def test_the_one_change_check_counts_each_changed_resource() -> None:
    pilot, big = row_of(_compare_record("a", PILOT)), row_of(_compare_record("b", BIG))
    found, unverifiable = changes(pilot, big)
    assert [(c.kind, c.name, c.before, c.after) for c in found] == [
        ("resources", "num_nodes", 1, 16),
        ("resources", "parallelism.data", 8, 32),
        ("resources", "parallelism.tensor", None, 4),
    ]
    assert unverifiable == []
    assert change_text(found[0].as_dict()) == "resources num_nodes: 1 -> 16"
    same = row_of(_compare_record("c", {**PILOT, "extra": {"note": "x"}}))
    assert changes(pilot, same) == ([], [])
