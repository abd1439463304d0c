"""The principals store's contract on the in-memory stand-in the unit tests use.

The same contract runs on `authz.Neo4jPrincipals` in
tests/integration/authz/test_authz_principals_neo4j.py.
"""

from __future__ import annotations

import pytest
from contracts.principals import Apply, PrincipalsContract, unique_prefix
from support.memory_stores import MemoryPrincipals

pytestmark = pytest.mark.unit


class TestPrincipalsInMemory(PrincipalsContract):
    @pytest.fixture(autouse=True)
    def _bind(self) -> None:
        self.prefix = unique_prefix()

    def fresh(self) -> tuple[MemoryPrincipals, Apply]:
        principals = MemoryPrincipals()
        return principals, principals.apply
