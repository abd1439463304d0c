"""`RecipeReads` in memory: artifacts, runs and derivation chains answered from nodes and edges
as `RecipeReader`'s Cypher answers them (tests/contracts/recipe_reads.py holds the two to the
same answers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from support.contract_graphs_recipes import Step, ViewGraph, stored

from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.query.read.recipe_reads import DERIVATION_DEPTH, Record
from provgraph.schemas.graph import Label, Rel

_BASES = (Label.MODEL_VERSION, Label.CHECKPOINT)


def _last_when_none(value: Any) -> tuple[bool, Any]:
    """An ascending sort key that puts a missing value last, as Cypher's ORDER BY does."""
    return value is None, value if value is not None else 0


class FakeRecipeReads:
    """The graph of `nodes` and `edges` (none by default: every node is missing)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)

    def _runs(self, node_id: str, scope: Scope) -> list[str]:
        return self.graph.target_ids(node_id, Rel.GENERATED_BY, scope, Label.RUN)

    def artifact(self, node_id: str, scope: Scope) -> Record | None:
        node = self.graph.node(node_id, scope)
        if node is None:
            return None
        exported = self.graph.targets(node.id, Rel.EXPORTED_FROM, scope, Label.CHECKPOINT)
        return {
            "type": node.type,
            "props": stored(node),
            "runs": self._runs(node.id, scope),
            "exported": [stored(c) for _, c in sorted(exported, key=lambda s: s[1].id)],
        }

    def run(self, run_id: str, scope: Scope) -> Record | None:
        run = self.graph.node(run_id, scope, Label.RUN)
        if run is None:
            return None
        return {
            "run": stored(run),
            "inputs": self._inputs(run.id, scope),
            "environments": [
                stored(e)
                for _, e in sorted(
                    self.graph.targets(run.id, Rel.RAN_IN, scope, Label.ENVIRONMENT),
                    key=lambda s: s[1].id,
                )
            ],
            "bases": self._bases(run.id, scope),
            "resumes": self._resumes(run.id, scope),
        }

    def _inputs(self, run_id: str, scope: Scope) -> list[Record]:
        used = self.graph.targets(run_id, Rel.USED, scope, Label.DATASET_VERSION)
        inputs = [{"role": e.props.get("role"), "id": d.id} for e, d in used]
        return sorted(inputs, key=lambda i: (_last_when_none(i["role"]), i["id"]))

    def _bases(self, run_id: str, scope: Scope) -> list[Record]:
        bases = self.graph.targets(run_id, Rel.STARTED_FROM, scope, *_BASES)
        return [
            {"type": b.type, "props": stored(b), "runs": self._runs(b.id, scope)}
            for _, b in sorted(bases, key=lambda s: s[1].id)
        ]

    def _resumes(self, run_id: str, scope: Scope) -> list[Record]:
        resumed = self.graph.targets(run_id, Rel.RESUMED_FROM, scope, Label.CHECKPOINT)
        ordered = sorted(resumed, key=lambda s: (_last_when_none(s[1].props.get("step")), s[1].id))
        return [{"props": stored(c), "runs": self._runs(c.id, scope)} for _, c in ordered]

    def derivation(self, ids: Sequence[str], scope: Scope) -> tuple[list[Record], list[Record]]:
        found = (self.graph.node(i, scope, Label.DATASET_VERSION) for i in dict.fromkeys(ids))
        reached = [n.id for n in found if n is not None]
        frontier = list(reached)
        for _ in range(DERIVATION_DEPTH):  # breadth first: each reached within the bound
            steps = (self._derived(i, scope) for i in frontier)
            frontier = list(dict.fromkeys(n.id for b in steps for _, n in b if n.id not in reached))
            reached += frontier
        inside = set(reached)
        edges: list[Record] = [
            {
                "src": e.src,
                "dst": n.id,
                "transform": e.props.get("transform"),
                "weight": e.props.get("weight"),
            }
            for i in reached
            for e, n in self._derived(i, scope)
            if n.id in inside
        ]
        return [stored(self.graph.by_id[i]) for i in reached], edges

    def _derived(self, version_id: str, scope: Scope) -> list[Step]:
        return self.graph.targets(version_id, Rel.DERIVED_FROM, scope, Label.DATASET_VERSION)
