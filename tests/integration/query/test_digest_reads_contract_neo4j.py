"""The DigestReads contract, run against DigestReader on the real Neo4j, the contract graph
written by the projector's writer (`support.contract_graphs_team`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.digest_reads import DigestReadsContract
from neo4j import Driver
from support.contract_graphs_team import DigestGraph, in_neo4j

from provgraph.query.read.digest_reads import DigestReads
from provgraph.query.read.readers import neo4j_readers


class TestDigestReader(DigestReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[DigestGraph]:
        graph = DigestGraph(f"{unique_name[:56]}-a", f"{unique_name[:56]}-b")
        with in_neo4j(neo4j_driver, graph):
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: DigestGraph) -> DigestReads:
        return neo4j_readers(neo4j_driver).digest
