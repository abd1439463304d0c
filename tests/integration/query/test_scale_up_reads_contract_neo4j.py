"""The `ScaleUpReads` contract, run against `ScaleUpReader` on the real Neo4j, over the
contract graph written in its stored form (`support.contract_graphs_recipes.written`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.scale_up_reads import ScaleUpReadsContract, scale_up_graph
from neo4j import Driver
from support.contract_graphs_recipes import KeyedGraph, written

from provgraph.query.read.readers import neo4j_readers
from provgraph.query.read.scale_up_reads import ScaleUpReads


class TestScaleUpReader(ScaleUpReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[KeyedGraph]:
        stem = unique_name[:56]
        with written(neo4j_driver, scale_up_graph(f"{stem}-a", f"{stem}-b")) as graph:
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: KeyedGraph) -> ScaleUpReads:
        return neo4j_readers(neo4j_driver).scale_up
