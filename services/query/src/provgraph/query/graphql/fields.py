"""Declared fields: a node type lists what it shows, not how each value is read.

A field whose value is a stored property is one line with its GraphQL type::

    name: str | None = text("name")
    params: JSON | None = decoded(PARAMS, "The run's parameters.")

instead of a hand-written resolver per field. Values are read from the node's view (what the
read model answered) with the contract's storage encoding (`provgraph.schemas.storage`):
nested values are decoded from their JSON text, records read from their flattened fields.

Such a field has no resolver: strawberry answers it as a plain attribute, which `read_from_view`
makes a lazy one (read from the view when asked). A lineage answer asks ~10 fields of each of
up to 10,000 nodes, and strawberry's path for a field with a resolver (an `Info` object, the
arguments converted, the field extensions chained) costs several times the read itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, NewType, Protocol, TypeVar, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types.scalar import ScalarDefinition

from provgraph.query.graphql.ids import CheckedIds
from provgraph.query.read.model import EdgeView, NodeView
from provgraph.schemas.limits import INT64_MAX, INT64_MIN
from provgraph.schemas.storage import decode_json, record_key

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
Props = Mapping[str, Any]
Read = Callable[[NodeView], Any]
_READ = "provgraph.read"  # a declared field's metadata: how its value is read from the view


class Viewed(Protocol):
    """A GraphQL object over one view: a node's (`NodeView`) or an edge's (`EdgeView`)."""

    view: Any


def field(
    description: str | None = None, *, name: str | None = None, graphql_type: Any = None
) -> Callable[[F], F]:
    """`@strawberry.field(...)` as a typed decorator (strawberry types that call as Any), for
    a field with a resolver: its `ID` arguments are checked first (`graphql.ids.CheckedIds`).

    The resolver stays a plain method for the type checker; strawberry still sees its field.
    `graphql_type` stands for the resolver's return annotation where that cannot name it.
    """
    declared = strawberry.field(
        description=description,
        name=name,
        graphql_type=graphql_type,
        extensions=[CheckedIds()],
    )
    return cast(Callable[[F], F], declared)


# ---- values, as GraphQL wants them ---------------------------------------------------------


def long_value(value: Any) -> int:
    """A 64-bit integer as it is (a bool or anything out of range is not one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Long cannot represent a non-integer value: {value!r}")
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"Long cannot represent a value outside 64 bits: {value}")
    return int(value)


Long = NewType("Long", int)
"""A 64-bit integer field (the schema maps it to the `Long` scalar: `LONG_SCALARS`)."""

LONG_SCALARS: dict[object, ScalarDefinition] = {
    Long: strawberry.scalar(
        name="Long",
        description=(
            "A 64-bit signed integer, as a JSON number: the steps and counts events carry, "
            "which the contract allows up to 2^63 - 1 (GraphQL's Int stops at 2^31 - 1). "
            "JavaScript reads such a number exactly up to 2^53."
        ),
        serialize=long_value,
        parse_value=long_value,
    )
}


def as_text(value: Any) -> str | None:
    return None if value is None else str(value)


def as_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def as_long(value: Any) -> Long | None:
    """A stored integer for a `Long` field."""
    number = as_int(value)
    return None if number is None else Long(number)


def as_float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def as_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def as_strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def picked(answer: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The values of `names` in a recipe's answer, under the same names: the fields of a type
    that shows them as the answer has them (`cls(**picked(found, "a", "b"), c=...)`)."""
    return {name: answer[name] for name in names}


def seconds(answer: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """A recipe answer's durations (`<name>_s`) as the fields that show them (`<name>_seconds`)."""
    return {f"{name}_seconds": answer[f"{name}_s"] for name in names}


def record_text(props: Props, prefix: str, name: str) -> str | None:
    """One text field of a record stored flattened (`code_commit`)."""
    return as_text(props.get(record_key(prefix, name)))


# ---- field factories -----------------------------------------------------------------------


class _FromView:
    """A lazy attribute: the value of one declared field, read from the object's view."""

    __slots__ = ("_read",)

    def __init__(self, read: Callable[[Any], Any]) -> None:
        self._read = read

    def __get__(self, obj: Viewed | None, owner: type | None = None) -> Any:
        return self if obj is None else self._read(obj.view)


def view_read(cls: type, name: str) -> Callable[[Any], Any] | None:
    """How the declared field `name` of `cls` reads its value from the view (`read(view)`), or
    None when it is not read from the view: for callers that hold the view already."""
    declared = next((c.__dict__[name] for c in cls.__mro__ if name in c.__dict__), None)
    return declared._read if isinstance(declared, _FromView) else None


def read_from_view(cls: type[T]) -> type[T]:
    """Class decorator, after `@strawberry.type`: every declared field of `cls` (its own and
    those it inherits) reads its value from the object's view when asked."""
    for declared in dataclasses.fields(cls):  # type: ignore[arg-type]
        read = declared.metadata.get(_READ)
        if read is not None:
            setattr(cls, declared.name, _FromView(read))
    return cls


def viewed(read: Read, description: str | None = None, **kw: Any) -> Any:
    """A field computed from the whole node view (the class must be `read_from_view`)."""
    return _from_view(read, description, **kw)


def edge_viewed(read: Callable[[EdgeView], Any], description: str | None = None, **kw: Any) -> Any:
    """A field computed from an edge's view (the class must be `read_from_view`)."""
    return _from_view(read, description, **kw)


def _from_view(read: Callable[[Any], Any], description: str | None, **kw: Any) -> Any:
    declared = strawberry.field(description=description, metadata={_READ: read}, **kw)
    declared.init = False  # not a constructor argument: read from the view when asked
    return declared


def stored(read: Callable[[Props], Any], description: str | None = None) -> Any:
    """A field computed from the node's stored properties."""
    return viewed(lambda view: read(view.props), description)


def text(key: str, description: str | None = None) -> Any:
    """The property `key` as text."""
    return stored(lambda props: as_text(props.get(key)), description)


def integer(key: str, description: str | None = None) -> Any:
    """The numeric property `key` as an integer (declare it `Long`: stored integers are
    64-bit)."""
    return stored(lambda props: as_long(props.get(key)), description)


def number(key: str, description: str | None = None) -> Any:
    """The numeric property `key` as a Float."""
    return stored(lambda props: as_float(props.get(key)), description)


def flag(key: str, description: str | None = None) -> Any:
    """The boolean property `key`."""
    return stored(lambda props: as_bool(props.get(key)), description)


def strings(key: str, description: str | None = None) -> Any:
    """The array property `key` as a list of texts (empty when absent)."""
    return stored(lambda props: as_strings(props.get(key)), description)


def decoded(name: str, description: str | None = None) -> Any:
    """The nested value `name`, decoded from its stored JSON text; null when absent."""

    def read(props: Props) -> JSON | None:
        value = decode_json(props, name)
        return None if value is None else JSON(value)

    return stored(read, description)
