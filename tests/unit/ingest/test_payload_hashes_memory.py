"""The payload-hashes lookup's contract on the in-memory stand-in the unit tests of ingest use.

The same contract runs on `graphread.Neo4jPayloadHashes` in
tests/integration/ingest/test_ingest_payload_hashes.py.
"""

from __future__ import annotations

import pytest
from contracts.payload_hashes import Apply, PayloadHashesContract
from support.memory_stores import MemoryPayloadHashes

pytestmark = pytest.mark.unit


class TestPayloadHashesInMemory(PayloadHashesContract):
    project = "p"

    def fresh(self) -> tuple[MemoryPayloadHashes, Apply]:
        hashes = MemoryPayloadHashes()
        return hashes, hashes.apply
