"""The `LessonReads` contract, run against `LessonReader` on the real Neo4j and its full-text
index `lessons` (applied with the projector's schema), over the contract graph written in its
stored form (`support.contract_graphs_recipes.written`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contracts.lesson_reads import LessonReadsContract, lesson_graph
from neo4j import Driver
from support.contract_graphs_recipes import KeyedGraph, written

from provgraph.query.read.lesson_reads import LessonReads
from provgraph.query.read.readers import neo4j_readers


class TestLessonReader(LessonReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[KeyedGraph]:
        stem = unique_name[:56]
        with written(neo4j_driver, lesson_graph(f"{stem}-a", f"{stem}-b")) as graph:
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: KeyedGraph) -> LessonReads:
        return neo4j_readers(neo4j_driver).lessons
