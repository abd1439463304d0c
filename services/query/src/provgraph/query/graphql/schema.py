"""The GraphQL schema and its FastAPI router."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, cast

import strawberry
from graphql import DocumentNode, GraphQLError, get_operation_ast
from graphql import ExecutionResult as GraphQLExecutionResult
from graphql import execute as graphql_execute
from starlette.requests import Request
from strawberry.execution import optimized_is_awaitable
from strawberry.fastapi import GraphQLRouter
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import DEFAULT_ALLOWED_OPERATION_TYPES
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.graphql import OperationType

# Every node type must be imported so that `to_node` knows it and the schema lists it.
from provgraph.query.graphql import data, models, runs
from provgraph.query.graphql.best_env import BestEnvQuery
from provgraph.query.graphql.checkpoints import CheckpointsQuery
from provgraph.query.graphql.columns import ColumnQuery
from provgraph.query.graphql.compare import CompareQuery
from provgraph.query.graphql.context import GraphContext, request_loop
from provgraph.query.graphql.cost import CostQuery
from provgraph.query.graphql.doccache import DocumentCache
from provgraph.query.graphql.errors import StructuredErrors, is_expected, shape
from provgraph.query.graphql.execution import LeafExecution
from provgraph.query.graphql.fields import LONG_SCALARS
from provgraph.query.graphql.guards import GuardsQuery
from provgraph.query.graphql.lessons import LessonsQuery
from provgraph.query.graphql.limits import limit_extensions
from provgraph.query.graphql.node import OtherNode
from provgraph.query.graphql.query import LookupQuery
from provgraph.query.graphql.router import ProvenanceRouter
from provgraph.query.graphql.scale_up import ScaleUpQuery
from provgraph.query.graphql.team import TeamQuery
from provgraph.query.graphql.traversals import TraversalQuery
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import Readers
from provgraph.query.recipes.service import Recipes
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings

log = logging.getLogger(__name__)

_TYPES: list[type] = [
    data.Dataset,
    data.DatasetVersion,
    runs.Experiment,
    runs.Run,
    runs.Checkpoint,
    runs.Environment,
    models.Model,
    models.ModelVersion,
    models.Evaluation,
    models.Deployment,
    OtherNode,
]


@strawberry.type(description="Provenance queries over the lineage graph.")
class Query(
    LookupQuery,
    TraversalQuery,
    ColumnQuery,
    CompareQuery,
    LessonsQuery,
    CostQuery,
    ScaleUpQuery,
    CheckpointsQuery,
    GuardsQuery,
    BestEnvQuery,
    TeamQuery,
):
    pass


class ProvenanceSchema(strawberry.Schema):
    """Runs each request whole on one worker thread, and logs only unexpected errors (a
    `not_found` is the caller's answer, not an incident).

    The read model is blocking (the Neo4j driver's sync API), and the service answers from an
    event loop. A request therefore leaves the loop once, for a worker thread that executes it
    on its own loop (`execute_here`): its resolvers and DataLoaders read in place. One hop per
    request, however many reads it makes, and none between its reads and their fields.

    A text the document cache holds as valid takes a shorter way (`_execute_valid`): straight
    into graphql-core's executor, without strawberry's per-request pipeline of extension hooks.
    Every extension of this schema works before execution (the limits, at parsing and
    validation, whose outcome the cache keeps) or on its result (`StructuredErrors`, which the
    short way applies itself), so the answer is the same either way; any other text (new, or
    refused) goes the whole way."""

    document_cache: DocumentCache

    async def execute(self, *args: Any, **kwargs: Any) -> ExecutionResult:
        """strawberry's `execute` (the same arguments), on a worker thread (`execute_here`)."""
        return await asyncio.to_thread(self.execute_here, *args, **kwargs)

    def execute_here(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any | None = None,
        root_value: Any | None = None,
        operation_name: str | None = None,
        allowed_operation_types: Iterable[OperationType] | None = None,
        operation_extensions: dict[str, Any] | None = None,
    ) -> ExecutionResult:
        """strawberry's `execute` on the calling thread, which must not be running an event
        loop (a worker thread, a script); returns the complete answer."""
        allowed = (
            DEFAULT_ALLOWED_OPERATION_TYPES
            if allowed_operation_types is None
            else set(allowed_operation_types)
        )
        document = None
        if query and operation_extensions is None:
            document = self.document_cache.valid(
                query, lambda known: _operation_type(known, operation_name) in allowed
            )
        if document is not None:
            return self._execute_valid(
                document, variable_values, context_value, root_value, operation_name
            )
        return request_loop().run_until_complete(
            super().execute(
                query,
                variable_values,
                context_value,
                root_value,
                operation_name,
                allowed,
                operation_extensions,
            )
        )

    def _execute_valid(
        self,
        document: DocumentNode,
        variable_values: dict[str, Any] | None,
        context_value: Any | None,
        root_value: Any | None,
        operation_name: str | None,
    ) -> ExecutionResult:
        """A validated document through graphql-core's executor, as strawberry's `execute`
        runs it, with its errors logged and shaped as the extensions would (class docstring)."""
        answer = graphql_execute(
            self._schema,
            document,
            root_value=root_value,
            context_value=context_value,
            variable_values=variable_values,
            operation_name=operation_name,
            is_awaitable=cast(Any, optimized_is_awaitable),
            executor_class=self.execution_context_class,
        )
        if not isinstance(answer, GraphQLExecutionResult):  # a resolver awaits (a DataLoader)
            answer = request_loop().run_until_complete(answer)
        errors = None
        if answer.errors:
            self.process_errors(answer.errors)
            errors = [shape(error) for error in answer.errors]
        return ExecutionResult(data=answer.data, errors=errors, extensions={})

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        unexpected = [error for error in errors if not is_expected(error)]
        super().process_errors(unexpected, execution_context)


def _operation_type(document: DocumentNode, name: str | None) -> OperationType | None:
    """The type of the operation `name` picks in `document`, None when it picks none."""
    operation = get_operation_ast(document, name)
    return None if operation is None else OperationType(operation.operation.value)


def make_schema(settings: QuerySettings) -> ProvenanceSchema:
    """The schema with `settings`' limits; resolvers read everything else from the context."""
    # Limits first: an oversized query is refused before anything runs. The document cache
    # comes after them, so that a cached text is still checked against this schema's limits
    # (its validation errors are cached with it).
    cache = DocumentCache(settings.graphql_document_cache)
    schema = ProvenanceSchema(
        query=Query,
        types=_TYPES,
        extensions=[*limit_extensions(settings), cache.extension(), StructuredErrors],
        execution_context_class=LeafExecution,
        config=StrawberryConfig(scalar_map=LONG_SCALARS),
    )
    schema.document_cache = cache
    return schema


def make_context(
    settings: QuerySettings,
    readers: Readers,
    recipes: Recipes | None = None,
    scope: Scope | None = None,
) -> GraphContext:
    """A fresh context (fresh DataLoaders) for in-process callers: the recipes over
    `readers.recipes` unless given, every project by default."""
    services = RecipeServices(settings, readers, recipes)
    return GraphContext(services, scope or Scope.everything())


def make_router(
    settings: QuerySettings, context: Callable[[Request], Awaitable[GraphContext]]
) -> GraphQLRouter[GraphContext, None]:
    """The `/graphql` router (GraphiQL for browsers); `context` builds each request's context."""
    router = ProvenanceRouter(make_schema(settings), context_getter=context, graphql_ide="graphiql")
    router.ui_dir = settings.ui_dir
    return router
