"""Per-request DataLoaders: every neighbour list of a GraphQL answer in one read per relation.

A list of 50 runs asking for `inputs` makes one `ReadModel.neighbours` call, not 50. A batch
is read in place, on the request's worker thread (`ProvenanceSchema.execute`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, TypeVar

from strawberry.dataloader import DataLoader

from provgraph.query.read.model import Direction, EdgeView, NodeView, Scope
from provgraph.query.read.ports import ReadModel

Pair = tuple[EdgeView, NodeView]
# (relationship type, direction, as_of): one loader each, since a batch shares all three.
NeighbourKey = tuple[str, Direction, str | None]
NodeBatch = Callable[[list[str]], Awaitable[Sequence[NodeView | None]]]
NeighbourBatch = Callable[[list[str]], Awaitable[Sequence[list[Pair]]]]
T = TypeVar("T")


class Loaders:
    """The DataLoaders of one request, created lazily."""

    def __init__(self, reader: ReadModel, scope: Scope) -> None:
        self._reader = reader
        self._scope = scope
        self._nodes: dict[str | None, DataLoader[str, NodeView | None]] = {}
        self._neighbours: dict[NeighbourKey, DataLoader[str, list[Pair]]] = {}
        self._batched: dict[Hashable, DataLoader[str, Any]] = {}

    def node(self, as_of: str | None) -> DataLoader[str, NodeView | None]:
        """Nodes by id (batched into one `ReadModel.nodes` call)."""
        if as_of not in self._nodes:
            self._nodes[as_of] = DataLoader(load_fn=self._load_nodes(as_of))
        return self._nodes[as_of]

    def neighbours(
        self, rel: str, direction: Direction, as_of: str | None
    ) -> DataLoader[str, list[Pair]]:
        """`rel` neighbours by node id (batched into one `ReadModel.neighbours` call)."""
        key = (rel, direction, as_of)
        if key not in self._neighbours:
            self._neighbours[key] = DataLoader(load_fn=self._load_neighbours(key))
        return self._neighbours[key]

    def batched(
        self, key: Hashable, fetch: Callable[[list[str]], Sequence[T]]
    ) -> DataLoader[str, T]:
        """Values by node id from `fetch`, a blocking read of a whole batch (one answer per id,
        in order); one loader per `key`, which must name everything `fetch` depends on."""
        if key not in self._batched:

            async def load(ids: list[str]) -> Sequence[T]:
                return fetch(ids)

            self._batched[key] = DataLoader(load_fn=load)
        loader: DataLoader[str, T] = self._batched[key]
        return loader

    def _load_nodes(self, as_of: str | None) -> NodeBatch:
        async def load(ids: list[str]) -> Sequence[NodeView | None]:
            return self._reader.nodes(ids, self._scope, as_of)

        return load

    def _load_neighbours(self, key: NeighbourKey) -> NeighbourBatch:
        rel, direction, as_of = key

        async def load(ids: list[str]) -> Sequence[list[Pair]]:
            return self._reader.neighbours(ids, rel, direction, self._scope, as_of)

        return load
