"""Lists of plain objects completed in one pass (graphql/flat.py through execution.py): the
same answers, key order and errors as strawberry's own executor, and the pass really taken."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar

import strawberry
from fakes import fake_readers
from query_graphql_fake import FakeRecipes, story
from strawberry.scalars import JSON
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from provgraph.query.graphql.execution import LeafExecution
from provgraph.query.graphql.fields import read_from_view, viewed
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.settings import QuerySettings


class Colour(Enum):
    RED = "red"


@strawberry.interface
class Thing:
    id: strawberry.ID
    count: int | None = None


@strawberry.type
class Box(Thing):
    colour: Colour | None = None
    props: JSON | None = None


@strawberry.type
class Bag(Thing):
    name: str = "bag"


@strawberry.type
class Odd(Thing):
    """Its own is_type_of: never answered in one pass."""

    @classmethod
    def is_type_of(cls, obj: Any, _info: Any) -> bool:
        return isinstance(obj, cls)


@strawberry.interface
class Picked:
    """An interface with its own resolve_type."""

    id: strawberry.ID

    @classmethod
    def resolve_type(cls, obj: Any, *_: Any) -> str:
        return "Crate" if obj.id.startswith("c") else "Tin"


@strawberry.type
class Crate(Picked):
    pass


@strawberry.type
class Tin(Picked):
    pass


def _things(kind: str, n: int) -> list[Any]:
    """`n` items of a mix of types; `kind` puts one bad item in."""
    items: list[Any] = [
        Box(id=strawberry.ID(f"b{i}"), count=i, colour=Colour.RED, props={"k": [i]})
        if i % 2
        else Bag(id=strawberry.ID(f"g{i}"), count=None)
        for i in range(n)
    ]
    bad = {
        "null-id": Bag(id=None),  # type: ignore[arg-type]
        "not-int": Box(id=strawberry.ID("x"), count="many"),  # type: ignore[arg-type]
        "cast": strawberry.cast(Bag, Box(id=strawberry.ID("x"))),
        "odd": Odd(id=strawberry.ID("o")),
        "none": None,
    }.get(kind)
    return items if bad is None and kind != "none" else [*items[:2], bad, *items[2:]]


@read_from_view
@strawberry.type
class Seen:
    """Fields read from a view (as the lineage's nodes and edges read theirs), and one not."""

    view: strawberry.Private[dict[str, Any]]
    id: strawberry.ID = viewed(lambda v: strawberry.ID(v["id"]))
    size: int | None = viewed(lambda v: v.get("size"))
    label: str = "seen"


class Label(str):
    """A subclass of str: completed as graphql-core completes it, not taken as a str."""


@strawberry.type
class Mixed:
    """String, ID and Boolean fields holding values of other classes than str and bool."""

    text: str | None
    ident: strawberry.ID | None
    flag: bool | None


MIXED = [
    ("a", "i", True),
    (5, 7, False),  # numbers: "5" and "7"
    (2.5, 3, 1),  # a float as text, an int as an ID, an int as a Boolean
    (True, "j", 0.0),  # a bool as text: "true"; a float as a Boolean
    (Label("x"), Label("y"), None),
    (None, None, None),
]


@strawberry.type
class Query:
    @strawberry.field
    def mixed(self) -> list[Mixed]:
        return [Mixed(text=t, ident=i, flag=f) for t, i, f in MIXED]  # type: ignore[arg-type]

    @strawberry.field
    def seen(self, bad: bool = False) -> list[Seen]:
        views: list[dict[str, Any]] = [{"id": f"s{i}", "size": i or None} for i in range(5)]
        return [Seen(view=v) for v in (views if not bad else [*views, {"id": None}])]

    @strawberry.field
    def things(self, kind: str = "good", n: int = 6) -> list[Thing | None]:
        return _things(kind, n)

    @strawberry.field
    def strict(self, kind: str = "good") -> list[Thing]:
        return _things(kind, 4)

    @strawberry.field
    def boxes(self) -> list[Box]:
        return [Box(id=strawberry.ID("b"), count=1), Box(id=strawberry.ID("c"), colour=None)]

    @strawberry.field
    def picked(self) -> list[Picked]:
        return [Crate(id=strawberry.ID("c1")), Tin(id=strawberry.ID("t1"))]


FIELDS = """__typename id n: count ... on Box { colour props count } ... on Bag { name }
            ... on Box @skip(if: true) { id } b: id @include(if: false)"""


class Counting(LeafExecution):
    """Counts the objects graphql-core completes one by one, and keeps the one-pass plans."""

    objects = 0
    plans: ClassVar[list[Any]] = []

    def complete_object_value(self, *args: Any, **kw: Any) -> Any:
        Counting.objects += 1
        return super().complete_object_value(*args, **kw)

    def _plan(self, *args: Any) -> Any:
        made = super()._plan(*args)
        Counting.plans.append(made)
        return made


def _schema(executor: type) -> strawberry.Schema:
    return strawberry.Schema(
        query=Query,
        types=[Box, Bag, Odd, Crate, Tin, Seen, Mixed],
        execution_context_class=executor,
    )


def _same(query: str) -> Any:
    """The answer of the one-pass executor, checked equal (key order, errors) to the standard
    executor's; returns it with how many objects graphql-core completed one by one."""
    Counting.objects, Counting.plans = 0, []
    fast = asyncio.run(_schema(Counting).execute(query))
    objects = Counting.objects
    standard = asyncio.run(_schema(StrawberryGraphQLCoreExecutionContext).execute(query))
    assert json.dumps(fast.data) == json.dumps(standard.data)
    errors = [e.formatted for e in fast.errors or []]
    assert errors == [e.formatted for e in standard.errors or []]
    return fast, objects


def test_a_list_of_plain_objects_is_completed_in_one_pass() -> None:
    answer, objects = _same(f"{{ things(n: 6000) {{ {FIELDS} }} boxes {{ id colour }} }}")
    assert objects == 0  # no item went graphql-core's way
    assert answer.errors is None
    things = answer.data["things"]
    assert len(things) == 6000
    assert things[:2] == [
        {"__typename": "Bag", "id": "g0", "n": None, "name": "bag"},
        {"__typename": "Box", "id": "b1", "n": 1, "colour": "RED", "props": {"k": [1]}, "count": 1},
    ]


def test_bad_items_go_the_standard_way_with_its_errors() -> None:
    for kind in ("null-id", "not-int", "none"):
        for field in ("things", "strict"):
            answer, objects = _same(f'{{ {field}(kind: "{kind}") {{ {FIELDS} }} }}')
            assert objects > 0, (kind, field)
            assert answer.errors or kind == "none", (kind, field)


def test_items_the_type_does_not_tell_go_the_standard_way() -> None:
    for query in (
        '{ things(kind: "cast") { __typename id } }',  # strawberry.cast
        '{ things(kind: "odd") { __typename id } }',  # its own is_type_of
        "{ picked { __typename id } }",  # the interface's own resolve_type
    ):
        answer, objects = _same(query)
        assert objects > 0 and answer.errors is None, query
    assert _same("{ picked { __typename } }")[0].data == {
        "picked": [{"__typename": "Crate"}, {"__typename": "Tin"}]
    }


def test_a_selection_beyond_plain_scalars_goes_the_standard_way() -> None:
    _, objects = _same("{ things(n: 3) { id ... on Box { count } } boxes { id } }")
    assert objects == 0
    _, objects = _same("{ strict { id } things { __typename } picked { id } }")
    assert objects == 2  # picked only: the interface's own resolve_type


def _lineage(executor: type, direction: str) -> tuple[Any, int]:
    settings = QuerySettings()
    schema = make_schema(settings)
    schema.execution_context_class = executor
    context = make_context(settings, fake_readers(story()), FakeRecipes())
    query = """query($id: ID!, $direction: Direction!) {
      lineage(id: $id, direction: $direction, depth: 5) {
        root { id } nodes { __typename id type properties ... on Run { name status } }
        edges { from to type properties } depths } }"""
    variables = {"id": "dataset:p/web@v1", "direction": direction}
    Counting.objects, Counting.plans = 0, []
    result = asyncio.run(schema.execute(query, variable_values=variables, context_value=context))
    assert result.errors is None
    return result.data, Counting.objects


def test_lineage_nodes_and_edges_take_the_one_pass() -> None:
    fast, objects = _lineage(Counting, "DOWNSTREAM")
    plans = list(Counting.plans)
    standard, _ = _lineage(StrawberryGraphQLCoreExecutionContext, "DOWNSTREAM")
    assert json.dumps(fast) == json.dumps(standard)
    assert len(fast["lineage"]["nodes"]) >= 4 and fast["lineage"]["edges"]
    assert objects == 2  # the Lineage and its root; every node and edge in one pass
    assert plans and all(plan.on_view for plan in plans)  # each view read once a row


def test_fields_read_from_views_are_read_from_each_view_once_alike() -> None:
    seen = [{"__typename": "Seen", "id": f"s{i}", "size": i or None} for i in range(5)]
    answer, objects = _same("{ seen { __typename id size } }")
    assert objects == 0 and answer.data == {"seen": seen}
    assert {plan.on_view for plan in Counting.plans} == {True}
    # A plain attribute beside them: every field read from the item, as before.
    answer, objects = _same("{ seen { id label } }")
    assert objects == 0 and answer.data["seen"][4] == {"id": "s4", "label": "seen"}
    assert {plan.on_view for plan in Counting.plans} == {False}
    answer, objects = _same("{ seen { __typename } }")
    assert objects == 0 and answer.data["seen"][0] == {"__typename": "Seen"}
    assert {plan.on_view for plan in Counting.plans} == {False}
    answer, objects = _same("{ seen(bad: true) { id size } }")  # a null id: the standard way
    assert objects > 0 and answer.errors


def test_a_list_of_one_is_answered_alike() -> None:
    answer: Callable[[str], Any] = lambda q: _same(q)[0].data  # noqa: E731
    assert answer("{ things(n: 1) { id } }") == {"things": [{"id": "g0"}]}
    assert answer("{ things(n: 0) { id } }") == {"things": []}


def test_scalars_of_other_classes_are_completed_as_graphql_core_completes_them() -> None:
    """Only a str in a String or ID field, or a bool in a Boolean one, is answered as it is;
    every other value is completed (a number as text, a number as a Boolean)."""
    answer, objects = _same("{ mixed { text ident flag } }")
    assert objects == 0 and answer.errors is None
    assert [tuple(row.values()) for row in answer.data["mixed"]] == [
        ("a", "i", True),
        ("5", "7", False),
        ("2.5", "3", True),
        ("true", "j", False),
        ("x", "y", None),
        (None, None, None),
    ]
