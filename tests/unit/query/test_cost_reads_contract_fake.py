"""The `CostReads` contract, run against the in-memory `FakeCostReads`."""

from __future__ import annotations

import pytest
from contracts.cost_reads import CostReadsContract, cost_graph
from fakes import FakeCostReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.cost_reads import CostReads


class TestFakeCostReads(CostReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return cost_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CostReads:
        return FakeCostReads(list(graph.nodes.values()), graph.edges)
