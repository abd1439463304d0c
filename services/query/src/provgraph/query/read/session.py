"""One read transaction against Neo4j, bounded in time; an outage is an `UnavailableError`.

No text of a driver or server error reaches an answer (it names servers, queries, internals):
it is logged here, and the caller gets a generic message with the Neo4j code.
"""

from __future__ import annotations

import logging
from typing import Any

from neo4j import (
    READ_ACCESS,
    Driver,
    ManagedTransaction,
    NotificationDisabledClassification,
    Record,
    unit_of_work,
)
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

        @unit_of_work(timeout=self._timeout_s)
        def work(tx: ManagedTransaction) -> list[Record]:
            return list(tx.run(text, params))

        try:
            with self._driver.session(
                database=self._database,
                default_access_mode=READ_ACCESS,
                # Types such as BASED_ON may not exist yet in a young graph: not worth a warning.
                notifications_disabled_classifications=[
                    NotificationDisabledClassification.UNRECOGNIZED
                ],
            ) as session:
                return session.execute_read(work)
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
