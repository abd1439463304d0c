"""The owners lookup's contract and the claim rule of the fold, on the in-memory graph.

The same contract runs on the Neo4j writer in
tests/integration/projector/test_projector_ownership.py.
"""

from __future__ import annotations

import pytest
from contracts.owners import OwnersContract

from provgraph.ingest.tools.memory_graph import MemoryGraph

pytestmark = pytest.mark.unit


class TestOwnersOnMemoryGraph(OwnersContract):
    project = "p"

    def fresh(self) -> tuple[MemoryGraph, MemoryGraph]:
        graph = MemoryGraph()
        return graph, graph
