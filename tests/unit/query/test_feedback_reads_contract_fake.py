"""The FeedbackReads contract, run against the in-memory FakeFeedbackReads the GraphQL tests
stand on."""

from __future__ import annotations

import pytest
from contracts.feedback_reads import FeedbackGraph, FeedbackReadsContract
from fakes import FakeFeedbackReads

from provgraph.query.read.feedback_reads import FeedbackReads


class TestFakeFeedbackReads(FeedbackReadsContract):
    @pytest.fixture()
    def graph(self) -> FeedbackGraph:
        return FeedbackGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: FeedbackGraph) -> FeedbackReads:
        return FakeFeedbackReads(graph.log.memory())
