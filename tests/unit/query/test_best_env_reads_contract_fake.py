"""The `BestEnvReads` contract, run against the in-memory `FakeBestEnvReads`."""

from __future__ import annotations

import pytest
from contracts.best_env_reads import BestEnvReadsContract, best_env_graph
from fakes import FakeBestEnvReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.best_env_reads import BestEnvReads


class TestFakeBestEnvReads(BestEnvReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return best_env_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> BestEnvReads:
        return FakeBestEnvReads(list(graph.nodes.values()), graph.edges)
