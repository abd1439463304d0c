"""`ScaleUpReads` in memory: a run and its pilot answered from nodes and edges as
`ScaleUpReader`'s Cypher answers them (tests/contracts/scale_up_reads.py holds the two to the
same answers); each run's record is the compare fake's."""

from __future__ import annotations

from collections.abc import Sequence

from support.contract_graphs_recipes import ViewGraph

from fakes.compare import FakeCompareReads
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.query.read.scale_up_reads import ScaleUpPair
from provgraph.schemas.graph import Label, Rel


class FakeScaleUpReads:
    """The graph of `nodes` and `edges` (none by default: every run is missing)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)
        self._records = FakeCompareReads(nodes, edges)

    def scale_up_pair(self, run: str, scope: Scope) -> ScaleUpPair | None:
        found = self.graph.node(run, scope, Label.RUN)
        if found is None or found.deleted_at is not None:
            return None
        named = [e.dst for e in self.graph.edges if e.src == run and e.type == Rel.SCALED_FROM]
        pilot_id = named[0] if named else None
        pilot = self.graph.node(pilot_id, scope, Label.RUN) if pilot_id else None
        usable = pilot is not None and pilot.deleted_at is None and not pilot.placeholder
        return ScaleUpPair(
            run=self._records.record(found, scope),
            pilot_id=pilot_id,
            pilot=self._records.record(pilot, scope) if pilot is not None and usable else None,
        )
