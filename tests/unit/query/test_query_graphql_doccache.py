"""The document cache: a known query text skips parsing and validation, never execution, and a
refused text stays refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fake_reader import FakeReader
from fakes import fake_readers
from graphql import parse
from query_graphql_fake import FakeRecipes, story

from provgraph.query.graphql.doccache import Checked, DocumentCache
from provgraph.query.graphql.schema import ProvenanceSchema, make_context, make_schema
from provgraph.query.settings import QuerySettings

NODE = "query($id: ID!) { node(id: $id) { id type } }"
DEEP = (
    '{ node(id: "run:r1") { ... on Run { experiment { runs { experiment { runs { id } } } } } } }'
)
_SETTINGS: dict[int, QuerySettings] = {}  # id(schema) -> the settings it was made with


def schema_with(**overrides: Any) -> ProvenanceSchema:
    """One long-lived schema (as one query service has), so its cache lives across calls."""
    settings = QuerySettings(**overrides)
    schema = make_schema(settings)
    _SETTINGS[id(schema)] = settings
    return schema


def execute(schema: ProvenanceSchema, reader: FakeReader, query: str, **variables: Any) -> Any:
    """One request: a fresh context, as per HTTP request."""
    context = make_context(_SETTINGS[id(schema)], fake_readers(reader), FakeRecipes())
    return asyncio.run(schema.execute(query, variable_values=variables, context_value=context))


def codes(result: Any) -> set[str]:
    return {e.formatted["extensions"]["code"] for e in result.errors}


def test_same_text_hits_the_cache_and_still_executes_with_its_own_variables() -> None:
    schema, reader = schema_with(), story()
    first = execute(schema, reader, NODE, id="run:r1")
    second = execute(schema, reader, NODE, id="run:r2")
    assert first.errors is None and second.errors is None
    assert first.data["node"]["id"] == "run:r1"
    assert second.data["node"]["id"] == "run:r2"
    cache = schema.document_cache
    assert (cache.misses, cache.hits, len(cache)) == (1, 1, 1)
    assert reader.calls["node"] + reader.calls["nodes"] == 2, "execution is never cached"


def test_a_refused_text_is_refused_again_from_the_cache() -> None:
    schema, reader = schema_with(graphql_max_depth=4), story()
    for _ in range(2):
        result = execute(schema, reader, DEEP)
        assert result.data is None
        assert codes(result) == {"limit_exceeded"}
    assert schema.document_cache.hits == 1
    assert sum(reader.calls.values()) == 0, "nothing may run"


def test_a_text_that_does_not_parse_is_not_kept() -> None:
    schema, reader = schema_with(graphql_max_tokens=10), story()
    query = '{ node(id: "run:r1") { id type project firstSeenAt lastEventAt } }'
    for _ in range(2):
        assert codes(execute(schema, reader, query)) == {"limit_exceeded"}
    assert codes(execute(schema, reader, "{ node(")) == {"graphql_parse_failed"}
    assert len(schema.document_cache) == 0
    assert schema.document_cache.hits == 0


def test_the_cache_is_per_schema_so_other_limits_are_not_bypassed() -> None:
    lenient, strict = schema_with(graphql_max_depth=8), schema_with(graphql_max_depth=4)
    reader = story()
    assert execute(lenient, reader, DEEP).errors is None
    assert codes(execute(strict, reader, DEEP)) == {"limit_exceeded"}


def test_least_recently_used_text_goes_first() -> None:
    cache = DocumentCache(2)
    for text in ("{ a }", "{ b }"):
        cache.put(text, Checked(parse(text), ()))
    assert cache.get("{ a }") is not None  # "{ b }" is now the least recently used
    cache.put("{ c }", Checked(parse("{ c }"), ()))
    assert cache.get("{ b }") is None
    assert cache.get("{ a }") is not None and cache.get("{ c }") is not None
    assert len(cache) == 2


def test_size_zero_keeps_nothing() -> None:
    schema, reader = schema_with(graphql_document_cache=0), story()
    for _ in range(2):
        assert execute(schema, reader, NODE, id="run:r1").errors is None
    assert (len(schema.document_cache), schema.document_cache.hits) == (0, 0)


def test_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="graphql_document_cache"):
        QuerySettings(graphql_document_cache=-1)
    with pytest.raises(ValueError, match=">= 0"):
        DocumentCache(-1)
