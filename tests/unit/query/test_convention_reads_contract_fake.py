"""The `ConventionReads` contract, run against the in-memory `FakeConventionReads`."""

from __future__ import annotations

import pytest
from contracts.convention_reads import ConventionReadsContract, convention_graph
from fakes import FakeConventionReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.convention_reads import ConventionReads


class TestFakeConventionReads(ConventionReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return convention_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> ConventionReads:
        return FakeConventionReads(list(graph.nodes.values()), graph.edges)
