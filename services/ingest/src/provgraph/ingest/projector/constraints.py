"""Apply the graph model's constraints and indexes to a Neo4j database, idempotently."""

from __future__ import annotations

import logging

from neo4j import Driver

from provgraph.schemas.graph import schema_statements

log = logging.getLogger(__name__)


def apply_schema(driver: Driver, database: str = "neo4j") -> int:
    """Create every constraint and index that is missing; return how many statements ran.

    One INFO line says what is in place; each statement is logged at DEBUG. The server's
    "index or constraint already exists" notes (one per statement on every start, whatever
    the driver's notification settings) are not asked for.
    """
    statements = schema_statements()
    created = 0
    with driver.session(
        database=database, notifications_disabled_classifications=["SCHEMA"]
    ) as session:
        for statement in statements:
            counters = session.run(statement).consume().counters
            added = bool(counters.constraints_added or counters.indexes_added)
            created += added
            log.debug("%s: %s", "created" if added else "exists", statement)
        session.run("CALL db.awaitIndexes(120)").consume()
    log.info(
        "Neo4j database %s: %d constraints and indexes in place (%d created)",
        database,
        len(statements),
        created,
    )
    return len(statements)
