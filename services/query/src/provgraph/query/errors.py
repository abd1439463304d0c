"""Errors of the query service: subclasses of provgraph's one error root, lower snake_case codes.

A well-formed id that names no node (or one the caller may not read) is core's `NotFoundError`
(`not_found`, 404); an unreachable or slow Neo4j core's `UnavailableError` (`unavailable`, 503);
the failures below are the query service's own. HTTP answers and GraphQL error extensions carry
the same `code`.
"""

from __future__ import annotations

from collections.abc import Mapping

from provgraph.core.errors import InvalidRequestError, NotFoundError, ProvgraphError


class QueryError(ProvgraphError):
    """Root of the query service's own expected failures."""


class InvalidArgumentError(QueryError, InvalidRequestError):
    """An argument is malformed or out of range (depth over the maximum, bad cursor...)."""

    code = "invalid_argument"


class InvalidIdError(QueryError, InvalidRequestError):
    """An id argument that is not an id at all (a typo, a missing ``run:`` prefix): no node
    can have it, so it is refused as malformed rather than answered `not_found`."""

    code = "invalid_id"


class LimitExceededError(QueryError, InvalidRequestError):
    """A request is larger than a configured limit (query depth, aliases, tokens, cost, time)."""

    code = "limit_exceeded"


class ForbiddenQueryError(QueryError, InvalidRequestError):
    """A Cypher query that is not read-only, or uses a refused construct."""

    code = "forbidden_query"

    @classmethod
    def because(cls, reason: str) -> ForbiddenQueryError:
        """`refused: <reason>`, with the reason in the details too."""
        return cls(f"refused: {reason}", reason=reason)


class MalformedJsonError(QueryError, InvalidRequestError):
    """A request body that is not JSON (or not UTF-8 text)."""

    code = "malformed_json"


class UnsupportedMediaTypeError(QueryError, InvalidRequestError):
    """A request body of a content type the endpoint does not read."""

    status = 415
    code = "unsupported_media_type"


def missing_sides(sides: Mapping[str, tuple[str, object | None]]) -> NotFoundError:
    """`not_found` for a question on two ids (`diff`, `path`), naming each argument whose id
    was not found: ``{"a": ("run:x", None), "b": ("run:y", <found>)}`` -> `run:x (argument a)`."""
    missing = {name: given for name, (given, found) in sides.items() if found is None}
    # Ends read after the question that missed one may all be there by now (just written):
    # then name them all rather than none.
    missing = missing or {name: given for name, (given, _) in sides.items()}
    described = ", ".join(f"{given} (argument {name})" for name, given in missing.items())
    return NotFoundError(f"Not found: {described}.", missing=missing)
