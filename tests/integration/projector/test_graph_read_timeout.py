"""The whole-graph read (`verify`, `graph-hash`, the benchmarks' graph checks) runs in
transactions with a timeout of its own, not the server's `db.transaction.timeout` (120 s),
which a 10M-event graph's node read outlived."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from neo4j import Driver
from neo4j.exceptions import Neo4jError

from provgraph.ingest.graphread import WHOLE_GRAPH_READ_TIMEOUT_S, emit_graph


class SlowSink:
    """Takes its time over the first node, as a sink over a large graph does over many."""

    def __init__(self, pause_s: float) -> None:
        self.pause_s = pause_s
        self.nodes: list[str] = []

    def add_node(self, key: str, labels: list[str], props: dict[str, Any]) -> None:
        if not self.nodes:
            time.sleep(self.pause_s)
        self.nodes.append(key)

    def add_edge(self, src: str, rel: str, dst: str, props: dict[str, Any]) -> None:
        pass


@pytest.fixture()
def project(neo4j_driver: Driver) -> Any:
    name = f"t-read-timeout-{uuid.uuid4().hex[:8]}"
    ids = [f"{name}:n{i}" for i in range(3)]
    neo4j_driver.execute_query(
        "UNWIND $ids AS id CREATE (:Entity {id: id, project: $p})", ids=ids, p=name
    )
    yield name, ids
    neo4j_driver.execute_query("MATCH (n:Entity {project: $p}) DETACH DELETE n", p=name)


def test_the_read_is_ended_by_its_own_timeout_and_not_the_servers(
    neo4j_driver: Driver, project: tuple[str, list[str]]
) -> None:
    name, ids = project
    # The timeout reaches the server: a read slower than it is ended there (the server checks
    # its transactions every 2 s).
    with pytest.raises(Neo4jError, match=r"(?i)timed? ?out|terminated"):
        emit_graph(neo4j_driver, SlowSink(4.0), name, timeout_s=0.5)
    # The default is far above the server's 120 s, and the same slow read completes under it.
    assert WHOLE_GRAPH_READ_TIMEOUT_S >= 3600
    sink = SlowSink(4.0)
    emit_graph(neo4j_driver, sink, name)
    assert sorted(sink.nodes) == sorted(ids)
