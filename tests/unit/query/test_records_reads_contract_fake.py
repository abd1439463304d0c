"""The RecordsReads contract, run against the in-memory FakeRecordsReads the audit's unit
tests stand on."""

from __future__ import annotations

import pytest
from contracts.records_reads import RecordsGraph, RecordsReadsContract
from fakes import FakeRecordsReads

from provgraph.query.read.records_reads import RecordsReads


class TestFakeRecordsReads(RecordsReadsContract):
    @pytest.fixture()
    def graph(self) -> RecordsGraph:
        return RecordsGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: RecordsGraph) -> RecordsReads:
        return FakeRecordsReads(graph.log.memory())
