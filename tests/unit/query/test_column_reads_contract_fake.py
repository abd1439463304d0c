"""The ColumnReads contract, run against the in-memory FakeColumnReads (the column reads of
`FakeReader`, the GraphQL tests' graph)."""

from __future__ import annotations

import pytest
from contracts.column_reads import ColumnReadsContract
from fake_reader import FakeColumnReads
from support.contract_graphs_marquez import InMemory, MarquezGraph

from provgraph.query.read.column_reads import ColumnReads


class TestFakeColumnReads(InMemory, ColumnReadsContract):
    @pytest.fixture()
    def reads(self, graph: MarquezGraph) -> ColumnReads:
        return FakeColumnReads(graph.nodes, graph.edges)
