"""The `Node` interface every lineage type implements, and the helpers the types share.

A GraphQL object wraps one `NodeView` (what the read model answered) and the `as_of` it was
read at, so its neighbours are read at the same point in time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar, cast

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.loaders import Pair
from provgraph.query.model import Direction, NodeView

F = TypeVar("F", bound=Callable[..., Any])


def field(description: str | None = None, *, name: str | None = None) -> Callable[[F], F]:
    """`@strawberry.field(...)` as a typed decorator (strawberry types that call as Any).

    The resolver stays a plain method for the type checker; strawberry still sees its field.
    """
    return cast(Callable[[F], F], strawberry.field(description=description, name=name))


@strawberry.interface(description="A node of the lineage graph.")
class Node:
    view: strawberry.Private[NodeView]
    as_of: strawberry.Private[str | None] = None

    @field(description="Stable id, e.g. `run:<id>` or `model:<project>/<name>@<v>`.")
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.view.id)

    @field(name="type", description="The node's label, e.g. `ModelVersion`.")
    def type_(self) -> str:
        return self.view.type

    @strawberry.field
    def project(self) -> str | None:
        return self.view.project

    @strawberry.field
    def first_seen_at(self) -> str | None:
        return self.view.first_seen_at

    @strawberry.field
    def last_event_at(self) -> str | None:
        return self.view.last_event_at

    @field(description="Set when the node was soft-deleted.")
    def deleted_at(self) -> str | None:
        return self.view.deleted_at

    @field(description="Referenced by another event, its own event not seen yet.")
    def placeholder(self) -> bool:
        return self.view.placeholder

    @field(description="Every stored property, as stored (nested maps as JSON text).")
    def properties(self) -> JSON:
        return JSON(dict(self.view.props))


@strawberry.type(description="A node of a type without its own GraphQL type.")
class OtherNode(Node):
    pass


N = TypeVar("N", bound=Node)
_TYPES: dict[str, Callable[[NodeView, str | None], Node]] = {}


def register(label: str) -> Callable[[type[N]], type[N]]:
    """Class decorator: `to_node` builds this type for nodes of `label`."""

    def add(cls: type[N]) -> type[N]:
        _TYPES[label] = lambda view, as_of: cls(view=view, as_of=as_of)
        return cls

    return add


def to_node(view: NodeView, as_of: str | None = None) -> Node:
    """The GraphQL object of a node view: its registered type, or OtherNode."""
    build = _TYPES.get(view.type)
    return build(view, as_of) if build else OtherNode(view=view, as_of=as_of)


def as_ref(view: NodeView, as_of: str | None) -> Any:
    """`to_node`, typed `Any` for fields whose type is a lazy reference to another module."""
    return to_node(view, as_of)


# ---- property access: the projector stores flat properties, nested maps as `<name>_json`.


def text(node: Node, key: str) -> str | None:
    value = node.view.props.get(key)
    return None if value is None else str(value)


def integer(node: Node, key: str) -> int | None:
    value = node.view.props.get(key)
    return int(value) if isinstance(value, int | float) else None


def number(node: Node, key: str) -> float | None:
    value = node.view.props.get(key)
    return float(value) if isinstance(value, int | float) else None


def flag(node: Node, key: str) -> bool | None:
    value = node.view.props.get(key)
    return value if isinstance(value, bool) else None


def strings(node: Node, key: str) -> list[str]:
    value = node.view.props.get(key)
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def decoded(node: Node, key: str) -> JSON | None:
    """A nested value stored as JSON text (`params_json`...), decoded; None when absent."""
    raw = node.view.props.get(key)
    if raw is None:
        return None
    try:
        value: Any = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:  # a malformed archive should not fail the whole answer
        return None
    return JSON(value)


# ---- neighbours, through the request's DataLoaders.


async def related(info: Info, node: Node, rel: str, direction: Direction) -> list[Pair]:
    """The node's `rel` neighbours (UPSTREAM: outgoing edges) with their edges."""
    loader = info.context.loaders.neighbours(rel, direction, node.as_of)
    return await loader.load(node.view.id)


async def related_of(
    info: Info, node: Node, rel: str, direction: Direction, label: str
) -> list[Any]:
    """The neighbours labelled `label` (neighbour lists may mix labels), as GraphQL objects.

    Typed `Any` so that resolvers can return them as their lazily imported concrete type.
    """
    pairs = await related(info, node, rel, direction)
    return [to_node(view, node.as_of) for _, view in pairs if view.type == label]


async def one_of(info: Info, node: Node, rel: str, direction: Direction, label: str) -> Any:
    """The first neighbour labelled `label` (edges that by the model point to one node)."""
    found = await related_of(info, node, rel, direction, label)
    return found[0] if found else None
