"""The ProvReads contract, run against ProvReader on the real Neo4j, the contract graph written
by the projector's writer (`support.contract_graphs_team`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.feedback_reads import FeedbackGraph
from contracts.prov_reads import ProvReadsContract, contract_graph
from neo4j import Driver
from support.contract_graphs_team import in_neo4j

from provgraph.query.read.prov_reads import ProvReads
from provgraph.query.read.readers import neo4j_readers


class TestProvReader(ProvReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[FeedbackGraph]:
        with in_neo4j(neo4j_driver, written := contract_graph(unique_name)):
            yield written

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver) -> ProvReads:
        return neo4j_readers(neo4j_driver).prov
