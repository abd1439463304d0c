"""The payload-hashes lookup's contract on Neo4j: `graphread.Neo4jPayloadHashes` reads back the
hashes the projector's writer stored on the events it applied.

The same contract runs on the in-memory stand-in in
tests/unit/ingest/test_payload_hashes_memory.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from contracts.payload_hashes import Apply, PayloadHashesContract
from neo4j import Driver

from provgraph.ingest.graphread import Neo4jPayloadHashes
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.schemas import Event


class TestPayloadHashesOnNeo4j(PayloadHashesContract):
    @pytest.fixture(autouse=True)
    def _bind(self, neo4j_driver: Driver, project: str) -> None:
        self.driver, self.project = neo4j_driver, project

    def fresh(self) -> tuple[Neo4jPayloadHashes, Apply]:
        writer = GraphWriter(self.driver)

        def apply(events: Sequence[Event]) -> None:
            writer.write([project_event(event) for event in events])

        return Neo4jPayloadHashes(self.driver), apply
