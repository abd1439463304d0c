"""One read transaction against Neo4j, bounded in time; an outage is an `UnavailableError`.

The transaction is the driver's `execute_query` in read mode: it sends BEGIN together with the
query and its PULL (a session's `execute_read` sends BEGIN and waits for its answer first, one
more round trip per read), and is retried on transient errors alike. It bypasses the driver's
bookmark manager, as a session of its own did: a read waits for no earlier write. Which of the
server's notifications are logged is the driver's setting (`Neo4jSettings.neo4j_driver` leaves
out the UNRECOGNIZED ones, which a young graph answers to every read naming a type not yet
written).

No text of a driver or server error reaches an answer (it names servers, queries, internals):
it is logged here, and the caller gets a generic message with the Neo4j code.
"""

from __future__ import annotations

import logging
from typing import Any

from neo4j import Driver, Query, Record, Result, RoutingControl
from neo4j.exceptions import (
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from provgraph.core.errors import ProvgraphError, UnavailableError
from provgraph.query.errors import LimitExceededError

logger = logging.getLogger(__name__)


class ReadSession:
    """Runs the read queries of the query service (retried by the driver on transient errors)."""

    def __init__(self, driver: Driver, database: str, timeout_s: float) -> None:
        self._driver = driver
        self._database = database
        self._timeout_s = timeout_s

    def run(self, text: str, params: dict[str, Any]) -> list[Record]:
        """The records of `text` read in one transaction with the configured timeout."""
        try:
            return self._driver.execute_query(
                Query(text, timeout=self._timeout_s),
                params,
                routing_=RoutingControl.READ,
                database_=self._database,
                bookmark_manager_=None,
                result_transformer_=_records,
            )
        except (ServiceUnavailable, SessionExpired, TransientError, Neo4jError, DriverError) as exc:
            raise self._failure(exc) from exc

    def _failure(self, exc: Exception) -> ProvgraphError:
        code = getattr(exc, "code", None) or ""
        if "TransactionTimedOut" in code:
            return LimitExceededError(
                f"the read ran longer than the {self._timeout_s:g} s limit",
                timeout_s=self._timeout_s,
            )
        logger.warning("read failed (%s): %s", code or type(exc).__name__, exc)
        if isinstance(exc, ServiceUnavailable | SessionExpired | TransientError):
            return UnavailableError("the graph database is unavailable")
        if isinstance(exc, Neo4jError):
            return UnavailableError("the graph database could not answer", neo4j_code=code)
        return UnavailableError("the graph database did not answer")


def _records(result: Result) -> list[Record]:
    return list(result)
