"""The ColumnReads contract, run against ColumnReader on the real Neo4j, over the graph the
projector writes from the contract's events (`support.contract_graphs_marquez.InNeo4j`)."""

from __future__ import annotations

import pytest
from contracts.column_reads import ColumnReadsContract
from neo4j import Driver
from support.contract_graphs_marquez import InNeo4j, MarquezGraph

from provgraph.query.read.column_reads import ColumnReads
from provgraph.query.read.readers import neo4j_readers


class TestColumnReader(InNeo4j, ColumnReadsContract):
    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: MarquezGraph) -> ColumnReads:
        return neo4j_readers(neo4j_driver).columns
