"""The fold's semantics, the order property and the batch rules on the in-memory graph.

The same contract runs on the Neo4j writer in tests/integration/projector/test_projector_writer.py.
"""

from __future__ import annotations

from contracts.graph_writer import GraphWriterContract
from contracts.numbering import NumberingContract

from provgraph.ingest.tools.memory_graph import MemoryGraph


class TestMemoryGraph(GraphWriterContract, NumberingContract):
    project = "p"

    def fresh(self) -> tuple[MemoryGraph, MemoryGraph]:
        graph = MemoryGraph()
        return graph, graph
