"""The `CheckpointReads` contract, run against the in-memory `FakeCheckpointReads`."""

from __future__ import annotations

import pytest
from contracts.checkpoint_reads import CheckpointReadsContract, checkpoint_graph
from fakes import FakeCheckpointReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.checkpoint_reads import CheckpointReads


class TestFakeCheckpointReads(CheckpointReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return checkpoint_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CheckpointReads:
        return FakeCheckpointReads(list(graph.nodes.values()), graph.edges)
