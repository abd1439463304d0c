"""Errors of the query service: subclasses of provgraph's one error root, lower snake_case codes.

A missing (or unreadable) node is core's `NotFoundError` (`not_found`, 404) and an unreachable
or slow Neo4j core's `UnavailableError` (`unavailable`, 503); the failures below are the query
service's own. HTTP answers and GraphQL error extensions carry the same `code`.
"""

from __future__ import annotations

from provgraph.core.errors import InvalidRequestError, ProvgraphError


class QueryError(ProvgraphError):
    """Root of the query service's own expected failures."""


class InvalidArgumentError(QueryError, InvalidRequestError):
    """An argument is malformed or out of range (depth over the maximum, bad cursor...)."""

    code = "invalid_argument"


class LimitExceededError(QueryError, InvalidRequestError):
    """A request is larger than a configured limit (query depth, aliases, tokens, cost, time)."""

    code = "limit_exceeded"


class ForbiddenQueryError(QueryError, InvalidRequestError):
    """A Cypher query that is not read-only, or uses a refused construct."""

    code = "forbidden_query"
