"""One read transaction against Neo4j, bounded in time; an outage is an `UnavailableError`."""

from __future__ import annotations

from typing import Any

from neo4j import (
    READ_ACCESS,
    Driver,
    ManagedTransaction,
    NotificationDisabledClassification,
    Record,
    unit_of_work,
)
from neo4j.exceptions import DriverError, ServiceUnavailable, SessionExpired, TransientError

from provgraph.core.errors import UnavailableError


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
        except (ServiceUnavailable, SessionExpired, TransientError) as exc:
            raise UnavailableError("the graph database is unavailable", cause=str(exc)) from exc
        except DriverError as exc:
            raise UnavailableError("the graph database did not answer", cause=str(exc)) from exc
