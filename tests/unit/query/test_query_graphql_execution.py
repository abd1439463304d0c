"""The executor's shortcut for plain scalar fields (graphql/execution.py): the same answers and
errors as strawberry's own executor, and the shortcut really taken."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum
from typing import Any

import strawberry
from fakes import fake_readers
from query_graphql_fake import FakeRecipes, story
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from provgraph.query.graphql.execution import LeafExecution
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.settings import QuerySettings

LINEAGE = """
query($id: ID!, $direction: Direction!) {
  lineage(id: $id, direction: $direction, depth: 5) {
    root { ...N } nodes { ...N } edges { from to type properties } truncated depths
  }
}
fragment N on Node {
  id type project firstSeenAt lastEventAt deletedAt placeholder properties __typename
  ... on DatasetVersion { name version recordCount cleaningRules cleaningRuleNames }
  ... on Run { name runNumber status params code { repo dirty } }
  ... on Checkpoint { step sizeBytes status }
  ... on ModelVersion { name version status fitFor validationPassed }
  ... on Deployment { name env: environment status }
}
"""


class Colour(Enum):
    RED = "red"


@strawberry.type
class Item:
    name: str
    count: int | None
    colour: Colour | None
    tags: list[str]

    @strawberry.field
    def shout(self, suffix: str = "!") -> str:
        return self.name.upper() + suffix


@strawberry.type
class Query:
    @strawberry.field
    def items(self, broken: bool = True) -> list[Item | None]:
        good = [Item(name="a", count=1, colour=Colour.RED, tags=["x"])]
        if not broken:
            return list(good)
        # The second item breaks its non-null `name`, the third its Int `count`.
        return [
            *good,
            Item(name=None, count=2, colour=None, tags=[]),  # type: ignore[arg-type]
            Item(name="c", count="many", colour=None, tags=[]),  # type: ignore[arg-type]
        ]


ITEMS = '{ items { name count colour tags shout(suffix: "?") __typename } }'


def _run(schema: strawberry.Schema, query: str, **kw: Any) -> Any:
    return asyncio.run(schema.execute(query, **kw))


def _both(make: Callable[[], strawberry.Schema], query: str, **kw: Any) -> tuple[Any, Any]:
    """The answer of the shortcut and of strawberry's own executor, on equal schemas."""
    fast, standard = make(), make()
    assert fast.execution_context_class is LeafExecution
    standard.execution_context_class = StrawberryGraphQLCoreExecutionContext
    return _run(fast, query, **kw), _run(standard, query, **kw)


def _items_schema(*extensions: type[SchemaExtension]) -> strawberry.Schema:
    return strawberry.Schema(
        query=Query, extensions=list(extensions), execution_context_class=LeafExecution
    )


def test_lineage_answers_equal_the_standard_executor() -> None:
    settings = QuerySettings()
    for root, direction in (("dataset:p/web@v1", "DOWNSTREAM"), ("deployment:p/api", "UPSTREAM")):
        answers = []
        for executor in (LeafExecution, StrawberryGraphQLCoreExecutionContext):
            schema = make_schema(settings)
            schema.execution_context_class = executor
            context = make_context(settings, fake_readers(story()), FakeRecipes())
            variables = {"id": root, "direction": direction}
            answers.append(_run(schema, LINEAGE, variable_values=variables, context_value=context))
        fast, standard = answers
        assert fast.errors is None and standard.errors is None
        assert fast.data == standard.data
        assert len(fast.data["lineage"]["nodes"]) >= 4  # a real answer, not an empty one


def test_errors_and_nulls_equal_the_standard_executor() -> None:
    fast, standard = _both(_items_schema, ITEMS)
    assert fast.data == standard.data
    assert fast.data["items"][0] == {
        "name": "a",
        "count": 1,
        "colour": "RED",
        "tags": ["x"],
        "shout": "A?",
        "__typename": "Item",
    }
    assert fast.data["items"][1] is None  # its non-null name was null
    assert fast.data["items"][2]["count"] is None  # "many" is no Int
    assert [e.formatted for e in fast.errors] == [e.formatted for e in standard.errors]
    messages = [e.message for e in fast.errors]
    assert len(messages) == 2
    assert "Cannot return null for non-nullable field Item.name" in messages[0]
    assert "Int cannot represent non-integer value" in messages[1]


def test_plain_fields_skip_the_resolve_info() -> None:
    built: list[str] = []

    class Counting(LeafExecution):
        def build_resolve_info(self, *args: Any, **kw: Any) -> Any:
            info = super().build_resolve_info(*args, **kw)
            built.append(info.field_name)
            return info

    schema = strawberry.Schema(query=Query, execution_context_class=Counting)
    _run(schema, "{ items { name count colour tags shout } }")
    # An `info` only for the resolvers, the list of strings and the broken values (answered
    # the standard way); none for a plain scalar that completed. Item 2 stops at its name.
    assert sorted(built) == sorted(["items", "tags", "shout", "name", "count", "tags", "shout"])


def test_middleware_still_wraps_plain_fields() -> None:
    class Upper(SchemaExtension):
        def resolve(
            self, _next: Callable[..., Any], root: Any, info: Any, *args: Any, **kw: Any
        ) -> Any:
            value = _next(root, info, *args, **kw)
            return value.upper() if isinstance(value, str) else value

    fast, standard = _both(lambda: _items_schema(Upper), "{ items(broken: false) { name } }")
    assert fast.errors is None and standard.errors is None
    assert fast.data == standard.data == {"items": [{"name": "A"}]}
