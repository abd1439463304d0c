"""`CheckpointReads` in memory: a run's checkpoints and their evaluations answered from nodes
and edges as `CheckpointReader`'s Cypher answers them (tests/contracts/checkpoint_reads.py
holds the two to the same answers)."""

from __future__ import annotations

from collections.abc import Sequence

from support.contract_graphs_recipes import ViewGraph

from provgraph.query.read.checkpoint_reads import (
    CheckpointEvaluation,
    RunCheckpoints,
    checkpoint_of,
    evaluation_of,
    in_step_order,
)
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas.graph import Label, Rel


def _stored(node: NodeView) -> dict[str, object]:
    return {**node.props, "id": node.id}


class FakeCheckpointReads:
    """The graph of `nodes` and `edges` (none by default: every run is missing)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)

    def run_checkpoints(self, run: str, scope: Scope, limit: int) -> RunCheckpoints | None:
        found = self.graph.node(run, scope, Label.RUN)
        if found is None or found.deleted_at is not None:
            return None
        saved = [
            n
            for _, n in self.graph.sources(run, Rel.GENERATED_BY, scope, Label.CHECKPOINT)
            if n.deleted_at is None
        ]
        latest = sorted(saved, key=lambda n: (n.props.get("step", -1), n.id), reverse=True)
        kept = [checkpoint_of(_stored(n), self._evaluations(n.id, scope)) for n in latest[:limit]]
        return RunCheckpoints(run, found.project, len(saved), in_step_order(kept))

    def _evaluations(self, checkpoint: str, scope: Scope) -> list[CheckpointEvaluation]:
        steps = self.graph.sources(checkpoint, Rel.EVALUATED, scope, Label.EVALUATION)
        live = sorted(
            (n for _, n in steps if n.deleted_at is None),
            key=lambda n: (n.props.get("evaluated_at") or "", n.id),
        )
        return [
            evaluation_of(
                _stored(n), self.graph.target_ids(n.id, Rel.USED, scope, Label.DATASET_VERSION)
            )
            for n in live
        ]
