"""The MarquezReads contract, run against the in-memory FakeMarquezReads."""

from __future__ import annotations

import pytest
from contracts.marquez_reads import SETTINGS, MarquezReadsContract
from fakes.marquez import FakeMarquezReads
from support.contract_graphs_marquez import InMemory, MarquezGraph

from provgraph.query.read.ports import MarquezReads


class TestFakeMarquezReads(InMemory, MarquezReadsContract):
    @pytest.fixture()
    def reads(self, graph: MarquezGraph) -> MarquezReads:
        return FakeMarquezReads(list(graph.nodes.values()), graph.edges, SETTINGS)
