"""The ProvReads contract, run against the in-memory FakeProvReads."""

from __future__ import annotations

import pytest
from contracts.feedback_reads import FeedbackGraph
from contracts.prov_reads import ProvReadsContract
from fakes.prov import FakeProvReads

from provgraph.query.read.prov_reads import ProvReads


class TestFakeProvReads(ProvReadsContract):
    @pytest.fixture()
    def graph(self) -> FeedbackGraph:
        return FeedbackGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: FeedbackGraph) -> ProvReads:
        return FakeProvReads(graph.log.memory())
