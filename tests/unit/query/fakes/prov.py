"""`ProvReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Sequence

from fakes.stored import StoredGraph, visible
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.model import Scope
from provgraph.query.read.prov_reads import Acted
from provgraph.schemas import issued_name


class FakeProvReads:
    """Who acted on each readable node: the readable applied events whose subject it is, as
    `prov_reads.ACTORS` reads them (tests/contracts/prov_reads.py holds both to the same
    answers)."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)

    def actors(self, ids: Sequence[str], scope: Scope) -> list[tuple[Acted, ...]]:
        return [self._of(node_id, scope) for node_id in ids]

    def _of(self, node_id: str, scope: Scope) -> tuple[Acted, ...]:
        node = self.graph.node(node_id)
        if node is None or not visible(node, scope):
            return ()
        first: dict[tuple[str, str | None], str] = {}
        for event in self.graph.touching(node_id):
            if event.subject == node_id and event.actor and scope.allows(event.project):
                key = (event.actor, issued_name(event.principal))
                first[key] = min(first.get(key, event.occurred_at), event.occurred_at)
        acted = (Acted(actor, principal, at) for (actor, principal), at in first.items())
        return tuple(sorted(acted, key=lambda a: (a.actor, a.principal or "")))
