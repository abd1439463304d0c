"""The read-only Cypher endpoint's guard: filter the text, ask the server, run read-only.

Three layers (docs/cypher.md); the last two do not depend on reading Cypher text:
1. a static check of the text (`cypher_text`): a first filter that refuses early with a clear
   reason;
2. `EXPLAIN <query>` (`cypher_plan`): the server's own summary must say "r" (read), and its plan
   may hold no LOAD CSV, no procedure off the allowlist, no administration command;
3. the query runs in a transaction opened in READ access mode (the server itself refuses
   writes there), with a timeout and a row cap, and is rolled back.
The server configuration the launcher writes is a fourth, outside this process: LOAD CSV may
read no file and no URL, and no plugin procedure is loaded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from provgraph.core.errors import ProvgraphError, UnavailableError
from provgraph.query.errors import ForbiddenQueryError, InvalidArgumentError, LimitExceededError
from provgraph.query.http.cypher_plan import check_summary
from provgraph.query.http.cypher_text import check_static
from provgraph.query.http.values import to_json

logger = logging.getLogger(__name__)

Prefilter = Callable[[str, str], str]
"""(query, database) -> the query to run, or raise: the text layer."""

# Errors about the caller's own query: their message (which quotes the query) is the answer.
_CALLER_CODES = frozenset(
    f"Neo.ClientError.{code}"
    for code in (
        "Statement.SyntaxError",
        "Statement.SemanticError",
        "Statement.TypeError",
        "Statement.ArgumentError",
        "Statement.ArithmeticError",
        "Statement.ParameterMissing",
        "Statement.EntityNotFound",
        "Procedure.ProcedureNotFound",
    )
)


@dataclass(frozen=True)
class CypherResult:
    """The answer of the Cypher endpoint; `truncated` when the row cap was hit."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "truncated": self.truncated,
            "row_count": len(self.rows),
        }


class CypherGuard:
    """Runs a caller's Cypher only when it is read-only, bounded in time and in rows.

    `prefilter` is the text layer (`check_static`); the other layers never depend on it.
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        *,
        timeout_s: float,
        row_cap: int,
        prefilter: Prefilter = check_static,
    ) -> None:
        self._driver = driver
        self._database = database
        self._timeout_s = timeout_s
        self._row_cap = row_cap
        self._prefilter = prefilter

    def run(self, query: str, parameters: Mapping[str, Any]) -> CypherResult:
        """Check `query`, EXPLAIN it, and run it; every refusal is a ForbiddenQueryError."""
        text = self._prefilter(query, self._database)
        try:
            return self._run_checked(text, dict(parameters))
        except (Neo4jError, DriverError) as exc:
            raise self.translate(exc) from None

    def _run_checked(self, text: str, parameters: dict[str, Any]) -> CypherResult:
        with self.session() as session:
            self._require_read(session, text, parameters)
            return self.fetch(session, text, parameters)

    def session(self) -> neo4j.Session:
        """A session in READ access mode: the server refuses writes, whatever the text."""
        fetch = max(1, min(self._row_cap + 1, 1000))
        return self._driver.session(
            database=self._database, default_access_mode=neo4j.READ_ACCESS, fetch_size=fetch
        )

    def _require_read(self, session: neo4j.Session, text: str, parameters: dict[str, Any]) -> None:
        # Text built from the caller's query is what this endpoint is for; values stay parameters.
        explain = neo4j.Query("EXPLAIN " + text, timeout=self._timeout_s)
        summary = session.run(explain, parameters).consume()
        check_summary(summary.query_type, summary.plan, self._database)

    def fetch(self, session: neo4j.Session, text: str, parameters: dict[str, Any]) -> CypherResult:
        """Run `text` in an explicit READ transaction, rolled back: stopping at the cap ends the
        query server-side instead of streaming the rest of the result to nobody."""
        with session.begin_transaction(timeout=self._timeout_s) as tx:
            result = tx.run(text, parameters)
            columns = list(result.keys())
            rows: list[list[Any]] = []
            for record in result:
                if len(rows) == self._row_cap:
                    tx.rollback()
                    return CypherResult(columns, rows, truncated=True)
                rows.append([to_json(value) for value in record.values()])
            tx.rollback()
        return CypherResult(columns, rows, truncated=False)

    def translate(self, exc: Neo4jError | DriverError) -> ProvgraphError:
        """The answer for a server or driver error: the caller's mistakes are named, anything
        else is a generic message with the Neo4j code (the details go to the log only)."""
        code = getattr(exc, "code", None) or ""
        if "TransactionTimedOut" in code:
            return LimitExceededError(
                f"the query ran longer than the {self._timeout_s:g} s limit",
                timeout_s=self._timeout_s,
            )
        if code == "Neo.ClientError.Statement.AccessMode":
            return ForbiddenQueryError.because("the query writes, and runs in a read transaction")
        message = getattr(exc, "message", None) or ""
        if isinstance(exc, ClientError) and code in _CALLER_CODES and message:
            return InvalidArgumentError(message, neo4j_code=code)
        logger.warning("Cypher endpoint: Neo4j error %s: %s", code or type(exc).__name__, exc)
        if isinstance(exc, ClientError) and code.startswith("Neo.ClientError.Statement."):
            return InvalidArgumentError("Neo4j refused the query", neo4j_code=code)
        return UnavailableError("the graph database could not answer the query", neo4j_code=code)
