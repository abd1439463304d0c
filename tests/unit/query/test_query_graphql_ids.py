"""A malformed id is `invalid_id` naming the argument; a well-formed unknown one `not_found`."""

from __future__ import annotations

from typing import Any

import pytest
from query_graphql_fake import run_query, story

from provgraph.query.errors import InvalidIdError
from provgraph.query.ids import checked_id

# Every root field that takes an id, with the malformed id in the argument named.
MALFORMED = [
    ('{ node(id: "not-an-id") { id } }', "node", "id"),
    ('{ lineage(id: "not-an-id") { truncated } }', "lineage", "id"),
    ('{ impact(id: "not-an-id") { node { id } } }', "impact", "id"),
    ('{ history(id: "not-an-id") { nextCursor } }', "history", "id"),
    ('{ reproduce(id: "not-an-id") }', "reproduce", "id"),
    ('{ path(from: "not-an-id", to: "run:r1") { nodes { id } } }', "path", "from"),
    ('{ path(from: "run:r1", to: "not-an-id") { nodes { id } } }', "path", "to"),
    ('{ diff(a: "not-an-id", b: "run:r1") }', "diff", "a"),
    ('{ diff(a: "run:r1", b: "not-an-id") }', "diff", "b"),
]


def only_error(result: Any) -> dict[str, Any]:
    assert result.errors is not None and len(result.errors) == 1
    formatted: dict[str, Any] = result.errors[0].formatted
    return formatted


@pytest.mark.parametrize(("query", "field", "argument"), MALFORMED)
def test_malformed_ids_are_invalid_id_naming_the_argument(
    query: str, field: str, argument: str
) -> None:
    reader = story()
    result = run_query(query, reader=reader)
    error = only_error(result)
    assert result.data == {field: None}
    assert error["extensions"] == {"code": "invalid_id"}
    assert error["path"] == [field]
    # What was given, where, and the form expected.
    assert error["message"].startswith(f"Invalid id in argument '{argument}': ")
    assert "'not-an-id'" in error["message"] and "'<kind>:' prefix" in error["message"]
    assert sum(reader.calls.values()) == 0  # refused before anything is read


def test_variables_are_checked_like_literals() -> None:
    query = "query($id: ID!) { lineage(id: $id) { truncated } }"
    error = only_error(run_query(query, variables={"id": "model:p/m@"}))
    assert error["extensions"] == {"code": "invalid_id"}
    assert "malformed model_version id 'model:p/m@'" in error["message"]
    assert "model:<project>/<name>@<version>" in error["message"]


def test_unknown_prefix_lists_the_known_ones() -> None:
    error = only_error(run_query('{ node(id: "runs:r1") { id } }'))
    assert error["extensions"] == {"code": "invalid_id"}
    assert "unknown id prefix 'runs'" in error["message"] and "run" in error["message"]


def test_well_formed_unknown_ids_stay_not_found() -> None:
    error = only_error(run_query('{ node(id: "model:p/nope@9") { id } }'))
    assert error["extensions"] == {"code": "not_found"}
    assert error["message"] == "Not found: model:p/nope@9."


def test_one_bad_field_leaves_the_others_answered() -> None:
    result = run_query('{ good: node(id: "run:r1") { id } bad: node(id: "r1") { id } }')
    assert result.data == {"good": {"id": "run:r1"}, "bad": None}
    assert only_error(result)["extensions"] == {"code": "invalid_id"}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('{ diff(a: "run:none", b: "run:r1") }', "Not found: run:none (argument a)."),
        ('{ diff(a: "run:r1", b: "run:none") }', "Not found: run:none (argument b)."),
        (
            '{ diff(a: "run:none", b: "run:none") }',
            "Not found: run:none (argument a), run:none (argument b).",
        ),
        (
            '{ path(from: "run:r1", to: "run:none") { nodes { id } } }',
            "Not found: run:none (argument to).",
        ),
    ],
)
def test_two_sided_fields_name_the_missing_side(query: str, message: str) -> None:
    error = only_error(run_query(query))
    assert error["extensions"] == {"code": "not_found"}
    assert error["message"] == message


def test_checked_id_keeps_good_ids_and_details_bad_ones() -> None:
    assert checked_id("nodeId", "dataset:p/web@v1") == "dataset:p/web@v1"
    with pytest.raises(InvalidIdError) as refused:
        checked_id("nodeId", "dataset p/web")
    assert refused.value.status == 400
    assert refused.value.details == {"argument": "nodeId", "value": "dataset p/web"}
