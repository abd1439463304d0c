"""The ReadModel contract, run against the in-memory FakeReader the GraphQL tests stand on."""

from __future__ import annotations

import pytest
from contracts.read_model import ContractGraph, ReadModelContract
from fake_reader import FakeReader

from provgraph.query.read.ports import ReadModel


class TestFakeReader(ReadModelContract):
    @pytest.fixture()
    def graph(self) -> ContractGraph:
        return ContractGraph("a", "b")

    @pytest.fixture()
    def reader(self, graph: ContractGraph) -> ReadModel:
        return FakeReader(list(graph.nodes.values()), list(graph.edges.values()), graph.history)
