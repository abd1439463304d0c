"""The ComplianceReads contract, run against the in-memory FakeComplianceReads."""

from __future__ import annotations

import pytest
from contracts.compliance_reads import ComplianceGraph, ComplianceReadsContract
from fakes import FakeComplianceReads

from provgraph.query.read.compliance_reads import ComplianceReads


class TestFakeComplianceReads(ComplianceReadsContract):
    @pytest.fixture()
    def graph(self) -> ComplianceGraph:
        return ComplianceGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: ComplianceGraph) -> ComplianceReads:
        return FakeComplianceReads(graph.log.memory())
