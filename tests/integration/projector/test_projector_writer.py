"""The writer contract on the Cypher writer and real Neo4j: the same graph as the in-memory model.

The fold's semantics, the order property (fewer examples than in memory: each one writes to
the database) and the batch rules, as tests/unit/projection/test_projection_semantics.py runs
them on the in-memory graph.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from contracts.graph_writer import GraphWriterContract
from contracts.numbering import NumberingContract
from neo4j import Driver

from provgraph.ingest.graphread import Neo4jGraph
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.schemas.graph import schema_statements


@pytest.fixture(scope="module", autouse=True)
def _schema(neo4j_driver: Driver) -> None:
    apply_schema(neo4j_driver)


def test_applying_the_schema_again_says_so_in_one_line(
    neo4j_driver: Driver, caplog: pytest.LogCaptureFixture
) -> None:
    # The shared driver is a plain one (the server's INFORMATION notes not filtered): the
    # quiet comes from apply_schema itself, whatever driver it is given.
    caplog.set_level(logging.INFO)
    assert apply_schema(neo4j_driver) == len(schema_statements())
    said = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    n = len(schema_statements())
    assert said == [
        (
            "provgraph.ingest.projector.constraints",
            "INFO",
            f"Neo4j database neo4j: {n} constraints and indexes in place (0 created)",
        )
    ]


class TestGraphWriterOnNeo4j(GraphWriterContract, NumberingContract):
    ORDER_EXAMPLES = 8
    TWICE_EXAMPLES = 4

    @pytest.fixture(autouse=True)
    def _bind(self, neo4j_driver: Driver, project: str) -> Iterator[None]:
        self.driver, self.project = neo4j_driver, project
        yield
        self.driver.execute_query(
            "MATCH (o:ProjectorOffset) WHERE o.topic STARTS WITH $t DELETE o",
            t=self.offsets_topic,
        )

    def fresh(self) -> tuple[GraphWriter, Neo4jGraph]:
        self.driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=self.project)
        return GraphWriter(self.driver), Neo4jGraph(self.driver)
