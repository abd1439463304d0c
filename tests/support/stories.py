"""What the seeded stories of the query tests share: an event of the current contract at a
given time, the command line run against the test's Neo4j, and GraphQL run in-process."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from neo4j import Driver
from strawberry.types import ExecutionResult

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas import REGISTRY, Event


def story_event(project: str, event_type: str, payload: dict[str, Any], at: datetime) -> Event:
    """`event_type` at its current version, with `payload`, in `project`, occurred `at`."""
    model = REGISTRY.resolve(event_type, REGISTRY.current_version(event_type))
    payload_type = model.model_fields["payload"].annotation
    assert payload_type is not None
    event = model.create(
        project=project,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=payload_type.model_validate(payload),
        occurred_at=at,
    )
    assert isinstance(event, Event)
    return event


def seed_story(
    driver: Driver, project: str, steps: Iterable[tuple[str, dict[str, Any], float]], t0: datetime
) -> None:
    """Write a story's steps (event type, payload, hours after `t0`) to `driver`'s graph as
    the projector writes them."""
    events = [story_event(project, t, payload, t0 + timedelta(hours=h)) for t, payload, h in steps]
    GraphWriter(driver).write([project_event(e) for e in events])


def provgraph_cli(endpoint: Any, *argv: str) -> subprocess.CompletedProcess[str]:
    """`provgraph <argv>` reading the Neo4j of `endpoint` (uri, user, password)."""
    env = {
        **os.environ,
        "PROVGRAPH_NEO4J_URI": endpoint.uri,
        "PROVGRAPH_NEO4J_USER": endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": endpoint.password,
    }
    return subprocess.run(
        [sys.executable, "-m", "provgraph.cli", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def graphql_result(
    driver: Driver,
    query: str,
    variables: dict[str, Any] | None = None,
    settings: QuerySettings | None = None,
) -> ExecutionResult:
    """`query` with `variables` run in-process on `driver`'s graph with `settings` (the
    defaults unless given), errors included."""
    settings = settings or QuerySettings()
    context = make_context(settings, neo4j_readers(driver, settings=settings))
    schema = make_schema(settings)
    return asyncio.run(schema.execute(query, variable_values=variables, context_value=context))


def graphql_executor(driver: Driver) -> Callable[[str], ExecutionResult]:
    """Runs a GraphQL query in-process on `driver`'s graph, a fresh context per query (as per
    HTTP request), and returns strawberry's result, errors included."""
    settings = QuerySettings()
    readers = neo4j_readers(driver, settings=settings)
    schema = make_schema(settings)

    def run(query: str) -> ExecutionResult:
        context = make_context(settings, readers)
        return asyncio.run(schema.execute(query, context_value=context))

    return run


def graphql_data(driver: Driver) -> Callable[[str], dict[str, Any]]:
    """Like `graphql_executor`, for a query that must succeed: its data."""
    execute = graphql_executor(driver)

    def run(query: str) -> dict[str, Any]:
        result = execute(query)
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data

    return run
