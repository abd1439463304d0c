"""The RecordsReads contract, run against RecordsReader on the real Neo4j, the contract graph
written by the projector's writer (`support.contract_graphs_team`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.records_reads import RecordsGraph, RecordsReadsContract
from neo4j import Driver
from support.contract_graphs_team import in_neo4j

from provgraph.query.read.readers import neo4j_readers
from provgraph.query.read.records_reads import RecordsReads


class TestRecordsReader(RecordsReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[RecordsGraph]:
        graph = RecordsGraph(f"{unique_name[:56]}-a", f"{unique_name[:56]}-b")
        with in_neo4j(neo4j_driver, graph):
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: RecordsGraph) -> RecordsReads:
        return neo4j_readers(neo4j_driver).records
