"""Errors are structured (extensions.code), with the same shape whatever went wrong."""

from __future__ import annotations

from typing import Any

import pytest
from query_graphql_fake import run_query, story

from provgraph.core.errors import UnavailableError


def codes(result: Any) -> list[str]:
    return [e.formatted["extensions"]["code"] for e in result.errors or ()]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ('{ node(id: "run:none") { id } }', "node"),
        ('{ modelVersion(name: "m", version: "9") { id } }', "modelVersion"),
        ("{ experiment(number: 7) { id } }", "experiment"),
        ('{ lineage(id: "run:none") { truncated } }', "lineage"),
        ('{ impact(id: "run:none") { node { id } } }', "impact"),
        ('{ history(id: "run:none") { nextCursor } }', "history"),
        ('{ path(from: "run:none", to: "run:r1") { nodes { id } } }', "path"),
        ('{ diff(a: "run:none", b: "run:r1") }', "diff"),
        ('{ reproduce(id: "run:r1") }', "reproduce"),
    ],
)
def test_missing_is_null_plus_not_found(query: str, field: str) -> None:
    result = run_query(query)
    assert result.data == {field: None}
    assert codes(result) == ["not_found"]
    formatted = result.errors[0].formatted
    assert set(formatted) == {"message", "locations", "path", "extensions"}
    assert formatted["path"] == [field]


@pytest.mark.parametrize(
    "query",
    [
        '{ lineage(id: "run:r1", depth: 21) { truncated } }',
        '{ lineage(id: "run:r1", depth: 0) { truncated } }',
        '{ lineage(id: "run:r1", limit: 10001) { truncated } }',
        "{ nodes(type: RUN, first: 501) { nextCursor } }",
        '{ node(id: "run:r1", asOf: "last tuesday") { id } }',
        "{ artifact { id } }",
    ],
)
def test_invalid_arguments(query: str) -> None:
    reader = story()
    result = run_query(query, reader=reader)
    assert codes(result) == ["invalid_argument"]
    assert reader.calls["lineage"] == reader.calls["list_nodes"] == 0


def test_unexpected_errors_are_masked() -> None:
    reader = story()

    def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("secret detail at /srv/app.py line 3")

    reader.search = broken  # type: ignore[method-assign]
    result = run_query('{ search(text: "x") { id } }', reader=reader)
    assert codes(result) == ["internal_error"]
    assert result.errors[0].formatted["message"] == "Unexpected error."
    assert "secret" not in str(result.errors[0].formatted)


def test_read_model_errors_keep_their_code() -> None:
    reader = story()

    def down(*_: Any, **__: Any) -> None:
        raise UnavailableError("Neo4j did not answer in time.")

    reader.search = down  # type: ignore[method-assign]
    result = run_query('{ search(text: "x") { id } }', reader=reader)
    assert codes(result) == ["unavailable"]


def test_invalid_documents_have_codes() -> None:
    assert codes(run_query("{ node(id: ")) == ["graphql_parse_failed"]
    assert codes(run_query('{ node(id: "run:r1") { nope } }')) == ["graphql_validation_failed"]
