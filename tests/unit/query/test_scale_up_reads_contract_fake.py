"""The `ScaleUpReads` contract, run against the in-memory `FakeScaleUpReads`."""

from __future__ import annotations

import pytest
from contracts.scale_up_reads import ScaleUpReadsContract, scale_up_graph
from fakes.scale_up import FakeScaleUpReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.scale_up_reads import ScaleUpReads


class TestFakeScaleUpReads(ScaleUpReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return scale_up_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> ScaleUpReads:
        return FakeScaleUpReads(list(graph.nodes.values()), graph.edges)
