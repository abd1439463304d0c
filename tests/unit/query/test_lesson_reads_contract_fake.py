"""The `LessonReads` contract, run against the in-memory `FakeLessonReads`."""

from __future__ import annotations

import pytest
from contracts.lesson_reads import LessonReadsContract, lesson_graph
from fakes import FakeLessonReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.lesson_reads import LessonReads


class TestFakeLessonReads(LessonReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return lesson_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> LessonReads:
        return FakeLessonReads(list(graph.nodes.values()), graph.edges)
