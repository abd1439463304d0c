"""Neighbours load through per-request DataLoaders: one read per relation, not per node."""

from __future__ import annotations

from query_graphql_fake import run_query, story


def test_neighbours_batched_once_per_relation_for_a_list_of_runs() -> None:
    reader = story()
    result = run_query(
        """{ nodes(type: RUN) { items { id ... on Run {
               inputs { role datasetVersion { id } }
               experiment { id }
               checkpoints { id } } } } }""",
        reader=reader,
    )
    assert result.errors is None
    runs = result.data["nodes"]["items"]
    assert [r["id"] for r in runs] == ["run:r1", "run:r2"]
    # One call per (relation, direction) for both runs together.
    assert reader.calls["neighbours"] == 3
    assert sorted(reader.neighbour_batches) == [
        ("GENERATED_BY", ("run:r1", "run:r2")),
        ("PART_OF", ("run:r1", "run:r2")),
        ("USED", ("run:r1", "run:r2")),
    ]


def test_root_lookups_by_id_are_batched() -> None:
    reader = story()
    result = run_query(
        '{ a: node(id: "run:r1") { id } b: node(id: "run:r2") { id } c: node(id: "model:p/m") '
        "{ id } }",
        reader=reader,
    )
    assert result.errors is None
    assert reader.calls["nodes"] == 1 and reader.calls["node"] == 0


def test_loaders_are_per_request() -> None:
    reader = story()
    query = '{ node(id: "run:r1") { ... on Run { experiment { id } } } }'
    run_query(query, reader=reader)
    run_query(query, reader=reader)
    # Two requests, two reads each: nothing is cached across requests.
    assert reader.calls["nodes"] == 2 and reader.calls["neighbours"] == 2
