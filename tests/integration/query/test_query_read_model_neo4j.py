"""The ReadModel contract, run against GraphReader on the real Neo4j.

The contract graph is written in its stored form (`provgraph.schemas.storage`): bookkeeping
properties, internal version stamps the reader must hide, first-seen stamps on relationships,
and the applied events that touched a node.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict

import pytest
from contracts.read_model import ContractGraph, ReadModelContract
from neo4j import Driver

from provgraph.query.read.model import NodeView
from provgraph.query.read.ports import ReadModel
from provgraph.query.read.readers import neo4j_readers
from provgraph.schemas import storage
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel


def _stored(node: NodeView) -> dict[str, object]:
    props: dict[str, object] = {
        **node.props,
        storage.ID: node.id,
        storage.PROJECT: node.project,
        storage.FIRST_SEEN_AT: node.first_seen_at,
        storage.LAST_EVENT_AT: node.last_event_at,
        storage.PLACEHOLDER: node.placeholder,
        storage.version_key("name"): f"{node.first_seen_at}|stamp",
    }
    if node.deleted_at is not None:
        props[storage.DELETED_AT] = node.deleted_at
    return props


def load(driver: Driver, graph: ContractGraph) -> None:
    """Write the contract graph into Neo4j as the projector stores a graph."""
    for node in graph.nodes.values():
        label = Label(node.type)  # labels only ever come from the graph model
        driver.execute_query(
            f"CREATE (n:{Label.ENTITY}:{label}) SET n = $props", props=_stored(node)
        )
    for edge in graph.edges.values():
        props = {**edge.props, storage.EDGE_VERSION: "stamp"}
        driver.execute_query(
            f"MATCH (a:{Label.ENTITY} {{id: $src}}), (b:{Label.ENTITY} {{id: $dst}}) "
            f"CREATE (a)-[r:{Rel(edge.type)}]->(b) SET r = $props",
            src=edge.src,
            dst=edge.dst,
            props=props,
        )
    for node in graph.nodes.values():
        for event in graph.history.get(node.id, []):
            driver.execute_query(
                f"MATCH (n:{Label.ENTITY} {{id: $id}}) "
                f"CREATE (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n) SET e = $props",
                id=node.id,
                props=asdict(event),
            )


class TestGraphReader(ReadModelContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[ContractGraph]:
        graph = ContractGraph(f"{unique_name[:56]}-a", f"{unique_name[:56]}-b")
        load(neo4j_driver, graph)
        yield graph
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.project IN $projects DETACH DELETE n",
            projects=[graph.a, graph.b],
        )

    @pytest.fixture()
    def reader(self, neo4j_driver: Driver, graph: ContractGraph) -> ReadModel:
        return neo4j_readers(neo4j_driver).graph
