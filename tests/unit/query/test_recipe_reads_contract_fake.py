"""The `RecipeReads` contract, run against the in-memory `FakeRecipeReads`."""

from __future__ import annotations

import pytest
from contracts.recipe_reads import RecipeReadsContract, recipe_graph
from fakes import FakeRecipeReads
from support.contract_graphs_recipes import KeyedGraph

from provgraph.query.read.recipe_reads import RecipeReads


class TestFakeRecipeReads(RecipeReadsContract):
    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        return recipe_graph("a", "b")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> RecipeReads:
        return FakeRecipeReads(list(graph.nodes.values()), graph.edges)
