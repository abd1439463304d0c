"""The MarquezReads contract, run against MarquezReader on the real Neo4j, over the graph the
projector writes from the contract's events: OpenLineage ones wrapped as ingest wraps them,
provgraph ones as sent, folded by the projection and written by the writer
(`support.contract_graphs_marquez.InNeo4j`)."""

from __future__ import annotations

import pytest
from contracts.marquez_reads import SETTINGS, MarquezReadsContract
from neo4j import Driver
from support.contract_graphs_marquez import InNeo4j, MarquezGraph

from provgraph.query.read.ports import MarquezReads
from provgraph.query.read.readers import neo4j_readers


class TestMarquezReader(InNeo4j, MarquezReadsContract):
    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: MarquezGraph) -> MarquezReads:
        return neo4j_readers(neo4j_driver, settings=SETTINGS).marquez
