"""The records-discipline lookup's contract on the in-memory graph.

The same contract runs on the Neo4j writer in
tests/integration/projector/test_projector_discipline.py.
"""

from __future__ import annotations

import pytest
from contracts.discipline_facts import DisciplineFactsContract

from provgraph.ingest.tools.memory_graph import MemoryGraph

pytestmark = pytest.mark.unit


class TestDisciplineFactsOnMemoryGraph(DisciplineFactsContract):
    project = "p"

    def fresh(self) -> MemoryGraph:
        return MemoryGraph()
