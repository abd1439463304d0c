"""Ids as they enter the query service: checked against the contract's id format first.

Every id a caller gives (a GraphQL `ID` argument, the REST `nodeId`) passes `checked_id`, so a
malformed one is answered `invalid_id`, naming the argument, what was given and the expected
form, and a well-formed id that names nothing stays `not_found`. The format is the contract's
(`provgraph.schemas.parse_id`): every node id of the graph was parsed by it when projected.
"""

from __future__ import annotations

from provgraph.query.errors import InvalidIdError
from provgraph.schemas import InvalidIdError as MalformedId
from provgraph.schemas import parse_id


def checked_id(argument: str, value: str) -> str:
    """`value` when it is a well-formed id, else `invalid_id` naming `argument`."""
    try:
        parse_id(value)
    except MalformedId as exc:
        raise InvalidIdError(
            f"Invalid id in argument {argument!r}: {exc}.", argument=argument, value=value
        ) from None
    return value
