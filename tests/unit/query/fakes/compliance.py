"""`ComplianceReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections import deque

from fakes.stored import StoredGraph, StoredNode, visible
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.compliance_reads import (
    COMPLIANCE_DEPTH,
    COMPLIANCE_LIMIT,
    UPSTREAM_RELS,
    ModelData,
    upstream_data,
)
from provgraph.query.read.convert import node_view
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel

_WALKED = {rel.value for rel in UPSTREAM_RELS}
_MADE_FROM = {Rel.DERIVED_FROM.value, Rel.GENERATED_BY.value}


class FakeComplianceReads:
    """The dataset versions upstream of a readable model version, breadth-first over readable
    nodes (as `compliance_reads.MODEL_DATA` walks them; tests/contracts/compliance_reads.py
    holds both to the same answers). Every model version asked is kept in `asked`."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.asked: list[str] = []

    def model_data(
        self, model_version: str, scope: Scope, *, limit: int = COMPLIANCE_LIMIT
    ) -> ModelData | None:
        self.asked.append(model_version)
        root = self.graph.node(model_version, Label.MODEL_VERSION)
        if root is None or not visible(root, scope):
            return None
        depths = self._walk(root.id, scope)
        data = sorted(
            (node_id for node_id, depth in depths.items() if depth <= COMPLIANCE_DEPTH),
            key=str,
        )
        data = [d for d in data if self._node(d).label is Label.DATASET_VERSION]
        cut = any(depth > COMPLIANCE_DEPTH for depth in depths.values())
        items = [
            upstream_data(
                {"node": self._node(d), "depth": depths[d], "made_from": self._made(d, scope)}
            )
            for d in data[:limit]
        ]
        return ModelData(node_view(root), tuple(items), cut or len(data) > limit)

    def _node(self, node_id: str) -> StoredNode:
        found = self.graph.node(node_id)
        assert found is not None
        return found

    def _next(self, node_id: str, rels: set[str], scope: Scope) -> list[str]:
        ends = {d for s, r, d in self.graph.links() if s == node_id and r in rels}
        found = (self.graph.node(end) for end in sorted(ends))
        return [node.id for node in found if node is not None and visible(node, scope)]

    def _walk(self, root: str, scope: Scope) -> dict[str, int]:
        """Every readable node within one step more than the bound, with its BFS depth."""
        depths, queue = {root: 0}, deque([root])
        while queue:
            at = queue.popleft()
            if depths[at] > COMPLIANCE_DEPTH:
                continue
            for found in self._next(at, _WALKED, scope):
                if found not in depths:
                    depths[found] = depths[at] + 1
                    queue.append(found)
        del depths[root]
        return depths

    def _made(self, node_id: str, scope: Scope) -> bool:
        return bool(self._next(node_id, _MADE_FROM, scope))
