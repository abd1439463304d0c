"""The DossierReads contract, run against the in-memory FakeDossierReads the GraphQL tests
stand on."""

from __future__ import annotations

import pytest
from contracts.dossier_reads import DossierGraph, DossierReadsContract
from fakes import FakeDossierReads

from provgraph.query.read.dossier_reads import DossierReads


class TestFakeDossierReads(DossierReadsContract):
    @pytest.fixture()
    def graph(self) -> DossierGraph:
        return DossierGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: DossierGraph) -> DossierReads:
        return FakeDossierReads(graph.log.memory())
