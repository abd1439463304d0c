"""The `CheckpointReads` contract, run against `CheckpointReader` on the real Neo4j, over the
contract graph written in its stored form (`support.contract_graphs_recipes.written`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.checkpoint_reads import CheckpointReadsContract, checkpoint_graph
from neo4j import Driver
from support.contract_graphs_recipes import KeyedGraph, written

from provgraph.query.read.checkpoint_reads import CheckpointReads
from provgraph.query.read.readers import neo4j_readers


class TestCheckpointReader(CheckpointReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[KeyedGraph]:
        stem = unique_name[:56]
        with written(neo4j_driver, checkpoint_graph(f"{stem}-a", f"{stem}-b")) as graph:
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: KeyedGraph) -> CheckpointReads:
        return neo4j_readers(neo4j_driver).checkpoints
