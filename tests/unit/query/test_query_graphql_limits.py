"""Hardening: oversized documents are refused before anything is read."""

from __future__ import annotations

from typing import Any

from query_graphql_fake import run_query, story

from provgraph.query.settings import QuerySettings


def refused(query: str, settings: QuerySettings) -> Any:
    reader = story()
    result = run_query(query, reader=reader, settings=settings)
    assert result.data is None
    assert sum(reader.calls.values()) == 0, "nothing may run"
    return result


def codes(result: Any) -> set[str]:
    return {e.formatted["extensions"]["code"] for e in result.errors}


DEEP = (
    '{ node(id: "run:r1") { ... on Run { experiment { runs { experiment { runs { id } } } } } } }'
)


def test_depth_limit() -> None:
    settings = QuerySettings(graphql_max_depth=4)
    assert codes(refused(DEEP, settings)) == {"limit_exceeded"}
    assert run_query(DEEP, settings=QuerySettings(graphql_max_depth=6)).errors is None


def test_depth_limit_sees_through_fragments() -> None:
    query = (
        "fragment R on Run { experiment { runs { experiment { runs { id } } } } }"
        '{ node(id: "run:r1") { ...R } }'
    )
    assert codes(refused(query, QuerySettings(graphql_max_depth=4))) == {"limit_exceeded"}


def test_alias_limit() -> None:
    query = "{ " + " ".join(f'a{i}: node(id: "run:r1") {{ id }}' for i in range(4)) + " }"
    assert codes(refused(query, QuerySettings(graphql_max_aliases=3))) == {"limit_exceeded"}
    assert run_query(query, settings=QuerySettings(graphql_max_aliases=4)).errors is None


def test_token_limit() -> None:
    query = '{ node(id: "run:r1") { id type project firstSeenAt lastEventAt } }'
    assert codes(refused(query, QuerySettings(graphql_max_tokens=10))) == {"limit_exceeded"}


def test_complexity_cap_counts_list_sizes() -> None:
    query = "{ nodes(type: RUN, first: 100) { items { id type project } } }"
    # nodes 1 + items 1 + 100 items x 3 fields = 302
    assert run_query(query, settings=QuerySettings(graphql_max_complexity=302)).errors is None
    result = refused(query, QuerySettings(graphql_max_complexity=301))
    assert codes(result) == {"limit_exceeded"}
    assert "302" in result.errors[0].formatted["message"]
    search = '{ search(text: "r", first: 50) { id type } }'  # 50 x 2 = 100
    assert codes(refused(search, QuerySettings(graphql_max_complexity=99))) == {"limit_exceeded"}


def test_complexity_of_unsized_lists_and_fragments() -> None:
    query = (
        "fragment C on Run { checkpoints { id step } }"
        '{ node(id: "run:r1") { ...C ... on Run { inputs { role } } } }'
    )
    # node 1 + checkpoints 1 + 10 x 2 + inputs 1 + 10 x 1 = 33
    assert run_query(query, settings=QuerySettings(graphql_max_complexity=33)).errors is None
    assert codes(refused(query, QuerySettings(graphql_max_complexity=32))) == {"limit_exceeded"}


INTROSPECT = "{ __schema { queryType { name } } }"


def test_introspection_switchable() -> None:
    allowed = run_query(INTROSPECT)
    assert allowed.errors is None and allowed.data["__schema"]["queryType"]["name"] == "Query"
    denied = run_query(INTROSPECT, settings=QuerySettings(graphql_introspection=False))
    assert denied.data is None and codes(denied) == {"graphql_validation_failed"}
