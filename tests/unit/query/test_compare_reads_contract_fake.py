"""The `CompareReads` contract, run against the in-memory `FakeCompareReads`."""

from __future__ import annotations

import pytest
from contracts.compare_reads import CompareReadsContract, compare_graph
from fakes import FakeCompareReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.compare_reads import CompareReads


class TestFakeCompareReads(CompareReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return compare_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CompareReads:
        return FakeCompareReads(list(graph.nodes.values()), graph.edges)
