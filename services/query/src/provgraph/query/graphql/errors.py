"""Structured GraphQL errors: a stable `extensions.code`, never a stack trace.

Expected failures are `provgraph.core.errors.ProvgraphError`s and carry their own code, the
same as over HTTP (`not_found`, `invalid_argument`...); anything else is masked as
`internal_error` "Unexpected error." and logged on the server only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import ExecutionResult as GraphQLExecutionResult
from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionResult

from provgraph.core.errors import ProvgraphError
from provgraph.query.errors import LimitExceededError

INTERNAL = ProvgraphError.code
LIMIT_EXCEEDED = LimitExceededError.code
PARSE_FAILED = "graphql_parse_failed"
VALIDATION_FAILED = "graphql_validation_failed"
UNEXPECTED = "Unexpected error."
# graphql-core's parser reports the token limit as a syntax error; this tells it apart.
_TOKEN_LIMIT = "tokens. Parsing aborted"


def coded(error: GraphQLError, code: str, message: str | None = None, **extra: Any) -> GraphQLError:
    """A copy of `error` with `extensions.code` (the original is kept for server logs only:
    GraphQL answers render message, locations, path and extensions, nothing else)."""
    return GraphQLError(
        message if message is not None else error.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error,
        extensions={**(error.extensions or {}), **extra, "code": code},
    )


def shape(error: GraphQLError) -> GraphQLError:
    """The client-facing form of one error."""
    original = error.original_error
    if isinstance(original, ProvgraphError):
        return coded(error, original.code, original.message)
    if original is None:  # the document itself: parse or validation (limits included)
        if (error.extensions or {}).get("code"):
            return error
        if isinstance(error, GraphQLSyntaxError):
            return coded(error, LIMIT_EXCEEDED if _TOKEN_LIMIT in error.message else PARSE_FAILED)
        return coded(error, VALIDATION_FAILED)
    if isinstance(original, GraphQLError):  # e.g. a bad scalar value in variables
        return coded(error, VALIDATION_FAILED)
    return coded(error, INTERNAL, UNEXPECTED)


def is_expected(error: GraphQLError) -> bool:
    """Errors that are the caller's doing: worth no server-side stack trace."""
    return error.original_error is None or isinstance(
        error.original_error, ProvgraphError | GraphQLError
    )


class StructuredErrors(SchemaExtension):
    """Rewrites every error of a result into its coded, masked form."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if isinstance(result, GraphQLExecutionResult | ExecutionResult) and result.errors:
            result.errors = [shape(error) for error in result.errors]
