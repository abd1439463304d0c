"""The real Neo4j server enforces the uniqueness constraints of the graph model."""

from __future__ import annotations

import pytest
from neo4j import Driver
from neo4j.exceptions import ConstraintError

from provgraph.schemas.graph import Label, schema_statements


def test_uniqueness_constraint_violation_is_raised(neo4j_driver: Driver, project: str) -> None:
    node_id = f"run:{project}"
    neo4j_driver.execute_query(
        "CREATE (n:Entity:Run {id: $id, project: $p})", id=node_id, p=project
    )
    with pytest.raises(ConstraintError):
        neo4j_driver.execute_query(
            "CREATE (n:Entity:Run {id: $id, project: $p})", id=node_id, p=project
        )
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (n:Run {id: $id}) RETURN count(n) AS c", id=node_id
    )
    assert records[0]["c"] == 1


def test_every_label_has_its_id_constraint(neo4j_driver: Driver) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type "
        "WHERE type = 'UNIQUENESS' RETURN labelsOrTypes[0] AS label, properties AS props"
    )
    constrained = {r["label"] for r in records if r["props"] == ["id"]}
    assert {label.value for label in Label} <= constrained


def test_schema_statements_are_idempotent(neo4j_driver: Driver) -> None:
    from provgraph.ingest.projector.constraints import apply_schema

    before, _, _ = neo4j_driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS c")
    assert apply_schema(neo4j_driver) == len(schema_statements())
    after, _, _ = neo4j_driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN count(*) AS c")
    assert before[0]["c"] == after[0]["c"]
