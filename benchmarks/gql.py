"""The query service's GraphQL schema executed in-process (no HTTP, so no auth in the way).

A call executes on the caller's thread (`execute_here`), as the service executes a request on
its worker thread and as the raw side calls the driver: the hop from the service's event loop
onto that thread belongs to the HTTP transport (one per request), not to GraphQL."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from provgraph.core.collector import collect_less
from provgraph.query.graphql.context import GraphContext
from provgraph.query.graphql.schema import make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings


class GraphQL:
    """`execute(query, **variables)` -> data; a fresh context (DataLoaders) per call, as per
    HTTP request."""

    def __init__(self, driver: Driver) -> None:
        self.settings = QuerySettings()
        collect_less(self.settings.query_gc_threshold)  # as the service does when it starts
        self.readers = neo4j_readers(driver, settings=self.settings)
        self.services = RecipeServices(self.settings, self.readers)  # as the query app's start
        self.schema = make_schema(self.settings)

    def execute(self, query: str, **variables: Any) -> dict[str, Any]:
        context = GraphContext(self.services, Scope.everything())  # as the service's routes
        result = self.schema.execute_here(query, variable_values=variables, context_value=context)
        if result.errors:
            raise RuntimeError(f"GraphQL errors: {result.errors}")
        assert result.data is not None
        return result.data
