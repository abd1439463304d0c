"""The DigestReads contract, run against the in-memory FakeDigestReads the GraphQL tests
stand on."""

from __future__ import annotations

import pytest
from contracts.digest_reads import DigestReadsContract
from fakes import FakeDigestReads
from support.contract_graphs_team import DigestGraph

from provgraph.query.read.digest_reads import DigestReads


class TestFakeDigestReads(DigestReadsContract):
    @pytest.fixture()
    def graph(self) -> DigestGraph:
        return DigestGraph("a", "b")

    @pytest.fixture()
    def reads(self, graph: DigestGraph) -> DigestReads:
        return FakeDigestReads(graph.log.memory())
