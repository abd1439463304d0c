"""The SeriesReads contract, run against the in-memory FakeSeriesReads the GraphQL tests
stand on."""

from __future__ import annotations

import pytest
from contracts.series_reads import SeriesGraph, SeriesReadsContract
from fakes import FakeSeriesReads

from provgraph.query.read.series_reads import SeriesReads


class TestFakeSeriesReads(SeriesReadsContract):
    @pytest.fixture()
    def graph(self) -> SeriesGraph:
        return SeriesGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: SeriesGraph) -> SeriesReads:
        return FakeSeriesReads(graph.log.memory())
