"""The ComplianceReads contract, run against ComplianceReader on the real Neo4j, the contract
graph written by the projector's writer (`support.contract_graphs_team`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.compliance_reads import ComplianceGraph, ComplianceReadsContract
from neo4j import Driver
from support.contract_graphs_team import in_neo4j

from provgraph.query.read.compliance_reads import ComplianceReads
from provgraph.query.read.readers import neo4j_readers


class TestComplianceReader(ComplianceReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[ComplianceGraph]:
        graph = ComplianceGraph(f"{unique_name[:56]}-a", f"{unique_name[:56]}-b")
        with in_neo4j(neo4j_driver, graph):
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: ComplianceGraph) -> ComplianceReads:
        return neo4j_readers(neo4j_driver).compliance
