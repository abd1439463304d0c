"""The `Node` interface every lineage type implements, and the neighbours it reaches.

A GraphQL object wraps one `NodeView` (what the read model answered) and the `as_of` it was
read at, so its neighbours are read at the same point in time, through the request's
DataLoaders. A neighbour field is declared like a property field (`fields.py`)::

    checkpoints: list[Checkpoint] = neighbours(Rel.GENERATED_BY, DOWN, Label.CHECKPOINT)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import read_from_view, viewed
from provgraph.query.read.model import Direction, EdgeView, NodeView

UP, DOWN = Direction.UPSTREAM, Direction.DOWNSTREAM


@strawberry.interface(description="A node of the lineage graph.")
class Node:
    view: strawberry.Private[NodeView]
    as_of: strawberry.Private[str | None] = None

    id: strawberry.ID = viewed(
        lambda v: strawberry.ID(v.id),
        "Stable id, e.g. `run:<id>` or `model:<project>/<name>@<v>`.",
    )
    type_: str = viewed(lambda v: v.type, "The node's label, e.g. `ModelVersion`.", name="type")
    project: str | None = viewed(lambda v: v.project)
    first_seen_at: str | None = viewed(lambda v: v.first_seen_at)
    last_event_at: str | None = viewed(lambda v: v.last_event_at)
    deleted_at: str | None = viewed(lambda v: v.deleted_at, "Set when the node was soft-deleted.")
    placeholder: bool = viewed(
        lambda v: v.placeholder, "Referenced by another event, its own event not seen yet."
    )
    properties: JSON = viewed(
        lambda v: JSON(dict(v.props)),
        "Every stored property, as stored (nested maps as JSON text).",
    )


@read_from_view
@strawberry.type(description="A node of a type without its own GraphQL type.")
class OtherNode(Node):
    pass


N = TypeVar("N", bound=Node)
_TYPES: dict[str, Callable[[NodeView, str | None], Node]] = {}


def register(label: str) -> Callable[[type[N]], type[N]]:
    """Class decorator, after `@strawberry.type`: `to_node` builds this type for nodes of
    `label`, whose declared fields read the node's view (`fields.read_from_view`)."""

    def add(cls: type[N]) -> type[N]:
        read_from_view(cls)
        _TYPES[label] = lambda view, as_of: cls(view=view, as_of=as_of)
        return cls

    return add


def to_node(view: NodeView, as_of: str | None = None) -> Node:
    """The GraphQL object of a node view: its registered type, or OtherNode."""
    build = _TYPES.get(view.type)
    return build(view, as_of) if build else OtherNode(view=view, as_of=as_of)


async def related(
    info: Info, node: Node, rel: str, direction: Direction, label: str | None
) -> list[tuple[EdgeView, Node]]:
    """The node's `rel` neighbours labelled `label` (None: any; a neighbour list may mix
    labels), each with the edge that reaches it; UPSTREAM follows outgoing edges."""
    loader = info.context.loaders.neighbours(rel, direction, node.as_of)
    pairs = await loader.load(node.view.id)
    return [(edge, to_node(view, node.as_of)) for edge, view in pairs if label in (None, view.type)]


def linked(
    rel: str,
    direction: Direction,
    label: str | None,
    build: Callable[[EdgeView, Any], Any],
    description: str | None = None,
) -> Any:
    """A field listing the `rel` neighbours labelled `label`, each built with its edge (an edge
    object: its role, its transform...)."""

    async def resolve(root: strawberry.Parent[Node], info: Info) -> list[Any]:
        found = await related(info, root, rel, direction, label)
        return [build(edge, node) for edge, node in found]

    return strawberry.field(resolver=resolve, description=description)


def neighbours(rel: str, direction: Direction, label: str, description: str | None = None) -> Any:
    """A field listing the node's `rel` neighbours labelled `label`."""
    return linked(rel, direction, label, lambda _edge, node: node, description)


def neighbour(
    rel: str, direction: Direction, label: str | None, description: str | None = None
) -> Any:
    """A field with the node's first `rel` neighbour labelled `label` (None: of any label), for
    edges that by the model point to one node."""

    async def resolve(root: strawberry.Parent[Node], info: Info) -> Node | None:
        found = await related(info, root, rel, direction, label)
        return found[0][1] if found else None

    return strawberry.field(resolver=resolve, description=description)
