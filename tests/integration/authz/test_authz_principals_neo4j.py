"""The principals store's contract on Neo4j: `authz.Neo4jPrincipals` reads the principals and
grants the projector's writer stored from token and grant events.

The same contract runs on the in-memory stand-in in tests/unit/authz/test_principals_memory.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from contracts.principals import Apply, PrincipalsContract, unique_prefix
from neo4j import Driver

from provgraph.authz import Neo4jPrincipals
from provgraph.ingest.projection.mutations import EventMutations
from provgraph.ingest.projector.writer import GraphWriter

# Every node of the test: its projects and their events, its principals and their token events.
_CLEAN = """
MATCH (n)
WHERE n.project STARTS WITH $prefix OR n.name STARTS WITH $principal
   OR n.subject STARTS WITH 'principal:' + $principal
DETACH DELETE n
"""


class TestPrincipalsOnNeo4j(PrincipalsContract):
    @pytest.fixture(autouse=True)
    def _bind(self, neo4j_driver: Driver) -> Iterator[None]:
        self.driver, self.prefix = neo4j_driver, unique_prefix()
        yield
        neo4j_driver.execute_query(_CLEAN, prefix=self.prefix, principal=f"user:{self.prefix}")

    def fresh(self) -> tuple[Neo4jPrincipals, Apply]:
        writer = GraphWriter(self.driver)

        def apply(changes: Sequence[EventMutations]) -> None:
            writer.write(changes)

        return Neo4jPrincipals(self.driver), apply
