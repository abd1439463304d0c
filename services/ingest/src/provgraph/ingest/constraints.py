"""Apply the graph model's constraints and indexes to a Neo4j database, idempotently."""

from __future__ import annotations

from neo4j import Driver

from provgraph.schemas.graph import schema_statements


def apply_schema(driver: Driver, database: str = "neo4j") -> int:
    """Create every constraint and index that is missing; return how many statements ran."""
    statements = schema_statements()
    with driver.session(database=database) as session:
        for statement in statements:
            session.run(statement).consume()
        session.run("CALL db.awaitIndexes(120)").consume()
    return len(statements)
