"""The stored graph the fakes of the digest, series and feedback reads answer from.

It is the graph as the projector's writer stores it, held in memory (`MemoryGraph`, the writer
port's in-memory adapter): stored properties with their version stamps, relationships, series
nodes and the applied events with every node each one touched. The fakes match it as the
readers' Cypher matches Neo4j, and decide who may see a node with the ReadModel fake's own
rule (`fake_reader.seen_by`, the Cypher `visible`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from fake_reader import seen_by

from provgraph.ingest.projection import EventRecord
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.convert import node_view
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import DELETED_AT, SERIES_RUN


class StoredNode(dict[str, Any]):
    """A node as the driver answers it: its stored properties (without nulls, which Neo4j
    does not keep) and its labels."""

    def __init__(self, label: Label, props: Mapping[str, Any]) -> None:
        super().__init__({k: v for k, v in props.items() if v is not None})
        self.label = label
        self.labels = frozenset({Label.ENTITY.value, label.value})

    @property
    def id(self) -> str:
        return str(self["id"])


def visible(node: StoredNode, scope: Scope, as_of: str | None = None) -> bool:
    """`fragments.visible`: readable in `scope`, and existing at `as_of`."""
    return seen_by(node_view(node), scope, as_of)


def live(node: StoredNode, as_of: str | None = None) -> bool:
    """`fragments.live`: not soft-deleted, or deleted after `as_of`."""
    deleted = node.get(DELETED_AT)
    return deleted is None or (as_of is not None and deleted > as_of)


class StoredGraph:
    """Look-ups on a `MemoryGraph`, one per pattern the readers match."""

    def __init__(self, memory: MemoryGraph | None = None) -> None:
        self.memory = memory if memory is not None else MemoryGraph()

    def node(self, node_id: str, *labels: Label) -> StoredNode | None:
        """The node `node_id`, when it has one of `labels` (any label when none is given)."""
        found = self.memory.nodes.get(node_id)
        if found is None or (labels and found[0] not in labels):
            return None
        return StoredNode(*found)

    def nodes(self, *labels: Label) -> Iterator[StoredNode]:
        """Every node with one of `labels`."""
        for label, props in self.memory.nodes.values():
            if label in labels:
                yield StoredNode(label, props)

    def links(self) -> Iterator[tuple[str, str, str]]:
        """Every relationship as (src, type, dst), those of replaced sets included."""
        for src, rel, dst, _ in self.memory.edges:
            yield src, rel, dst
        for (src, rel), replaced in self.memory.edge_sets.items():
            for target in replaced.targets:
                yield src, rel, target.id

    def sources(self, dst: str, rel: Rel, label: Label) -> list[StoredNode]:
        """The `label` nodes with a `rel` relationship to `dst`."""
        return self._labelled({s for s, r, d in self.links() if r == rel.value and d == dst}, label)

    def targets(self, src: str, rel: Rel, label: Label) -> list[StoredNode]:
        """The `label` nodes `src` has a `rel` relationship to."""
        return self._labelled({d for s, r, d in self.links() if r == rel.value and s == src}, label)

    def _labelled(self, ids: set[str], label: Label) -> list[StoredNode]:
        found = (self.node(node_id, label) for node_id in sorted(ids))
        return [node for node in found if node is not None]

    def touching(self, node_id: str) -> list[EventRecord]:
        """The applied events that touched `node_id`."""
        return [e for e in self.memory.events.values() if node_id in e.touched]

    def series(self, run_id: str) -> list[dict[str, Any]]:
        """The stored properties of each series node of `run_id`."""
        return [dict(s) for s in self.memory.series.values() if s.get(SERIES_RUN) == run_id]
