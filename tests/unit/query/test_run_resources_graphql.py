"""`Run.resources`: the compute of a run's `run.started` event, typed, from its stored form."""

from __future__ import annotations

from typing import Any

from fake_reader import FakeReader
from query_graphql_fake import run_query, view

from provgraph.schemas.storage import encode_json, with_json

QUERY = """{ node(id: "run:r") { ... on Run { resources {
    numNodes devicesPerNode accelerator parallelism { name degree } extra } } } }"""


def resources_of(**props: Any) -> Any:
    reader = FakeReader([view("run:r", "Run", name="r", **props)], [])
    result = run_query(QUERY, reader)
    assert result.errors is None, result.errors
    return result.data["node"]["resources"]


def test_every_recorded_field_is_typed() -> None:
    # As the projection stores them: the JSON text and its flattened copies.
    stored = with_json(
        "resources",
        {
            "num_nodes": 4,
            "devices_per_node": 8,
            "accelerator": "H100",
            "parallelism": {"tensor": 2, "data": 16},
            "extra": {"interconnect": "nvlink", "spot": True},
        },
        "resources",
    )
    assert resources_of(**stored) == {
        "numNodes": 4,
        "devicesPerNode": 8,
        "accelerator": "H100",
        "parallelism": [{"name": "data", "degree": 16}, {"name": "tensor", "degree": 2}],
        "extra": {"interconnect": "nvlink", "spot": True},
    }


def test_fields_not_recorded_are_null_or_empty() -> None:
    stored = {"resources_json": encode_json({"devices_per_node": 8, "parallelism": {}})}
    assert resources_of(**stored) == {
        "numNodes": None,
        "devicesPerNode": 8,
        "accelerator": None,
        "parallelism": [],
        "extra": {},
    }


def test_a_run_without_resources_answers_null() -> None:
    assert resources_of() is None


def test_an_unreadable_archive_answers_null_not_an_error() -> None:
    assert resources_of(resources_json="{not json") is None
    assert resources_of(resources_json=encode_json([1, 2])) is None
