"""`CostReads` in memory: a model version's origin answered from nodes and edges as
`CostReader`'s Cypher answers it (tests/contracts/cost_reads.py holds the two to the same
answers)."""

from __future__ import annotations

from collections.abc import Sequence

from support.contract_graphs_recipes import ViewGraph

from provgraph.query.read.cost_reads import ModelOrigin
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas.graph import Label, Rel


class FakeCostReads:
    """The graph of `nodes` and `edges` (none by default: every model version is missing)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)

    def model_origin(self, model_version: str, scope: Scope) -> ModelOrigin | None:
        graph = self.graph
        if graph.node(model_version, scope, Label.MODEL_VERSION) is None:
            return None
        runs = graph.target_ids(model_version, Rel.GENERATED_BY, scope, Label.RUN)
        run = runs[0] if runs else None
        if run is None:
            return ModelOrigin(None, None, None, 0)
        experiments = graph.target_ids(run, Rel.PART_OF, scope, Label.EXPERIMENT)
        bases = graph.target_ids(run, Rel.STARTED_FROM, scope, Label.MODEL_VERSION)
        base = bases[0] if bases else None
        users = (
            [
                n
                for _, n in graph.sources(base, Rel.STARTED_FROM, scope, Label.RUN)
                if n.deleted_at is None
            ]
            if base is not None
            else []
        )
        return ModelOrigin(run, experiments[0] if experiments else None, base, len(users))
