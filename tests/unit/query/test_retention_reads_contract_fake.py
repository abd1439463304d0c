"""The RetentionReads contract, run against the in-memory FakeRetentionReads the advice's unit
tests stand on."""

from __future__ import annotations

import pytest
from contracts.retention_reads import RetentionGraph, RetentionReadsContract
from fakes import FakeRetentionReads

from provgraph.query.read.retention_reads import RetentionReads


class TestFakeRetentionReads(RetentionReadsContract):
    @pytest.fixture()
    def graph(self) -> RetentionGraph:
        return RetentionGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: RetentionGraph) -> RetentionReads:
        return FakeRetentionReads(graph.log.memory())
