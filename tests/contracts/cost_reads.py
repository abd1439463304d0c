"""The `CostReads` contract: where a model version came from, every adapter held to the same
answers: `CostReadsContract` runs against `FakeCostReads`
(tests/unit/query/test_cost_reads_contract_fake.py) and `CostReader` over the real Neo4j
(tests/integration/query/test_cost_reads_contract_neo4j.py), each over `cost_graph`."""

from __future__ import annotations

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.cost_reads import CostReads, ModelOrigin
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel


def cost_graph(a: str, b: str) -> KeyedGraph:
    """Project a: model version `m` made by run `r` of experiment `x`, which started from
    `base`; two more runs started from `base` (one deleted), a model version without a run;
    project b: a run that started from `base` too, and a model version of a's made by b's run."""
    g = KeyedGraph(a, b)
    g.add("x", Label.EXPERIMENT, "experiment:{a}/sweep")
    g.add("base", Label.MODEL_VERSION, "model:{a}/base@1")
    g.add("m", Label.MODEL_VERSION, "model:{a}/chat@2")
    g.add("lone", Label.MODEL_VERSION, "model:{a}/lone@1")
    g.add("made", Label.MODEL_VERSION, "model:{a}/made@1")
    for key, template in (("r", "run:{a}-r"), ("u1", "run:{a}-u1"), ("u2", "run:{a}-u2")):
        g.add(key, Label.RUN, template)
    g.add("theirs", Label.RUN, "run:{b}-t")
    g.mark("u2", deleted=at(9))
    g.link("m", Rel.GENERATED_BY, "r")
    g.link("r", Rel.PART_OF, "x")
    g.link("made", Rel.GENERATED_BY, "theirs")
    for run in ("r", "u1", "u2", "theirs"):
        g.link(run, Rel.STARTED_FROM, "base")
    return g


class CostReadsContract:
    """What every `CostReads` adapter answers on `cost_graph`."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CostReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_a_model_versions_run_experiment_and_base(
        self, reads: CostReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        run, x, base = graph.id("r"), graph.id("x"), graph.id("base")
        # r and u1 started from base (u2 is deleted); b's run counts for a reader of b
        assert reads.model_origin(graph.id("m"), only_a) == ModelOrigin(run, x, base, 2)
        assert reads.model_origin(graph.id("m"), both) == ModelOrigin(run, x, base, 3)

    def test_without_a_readable_run_and_missing(self, reads: CostReads, graph: KeyedGraph) -> None:
        only_a, both = graph.scopes()
        nothing = ModelOrigin(None, None, None, 0)
        assert reads.model_origin(graph.id("lone"), both) == nothing
        assert reads.model_origin(graph.id("made"), only_a) == nothing
        assert reads.model_origin(graph.id("made"), both) == ModelOrigin(
            graph.id("theirs"), None, graph.id("base"), 3
        )
        assert reads.model_origin("model:nowhere/x@1", both) is None
        assert reads.model_origin(graph.id("m"), Scope(frozenset())) is None
        assert reads.model_origin(graph.id("r"), both) is None  # a run is no model version
