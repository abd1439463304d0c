"""What the server says a query is: the Cypher endpoint's check of `EXPLAIN <query>`.

The text filter (`cypher_text`) reads the query as provgraph's tokenizer sees it; this module
reads what Neo4j itself compiled, so no comment, escape or quoting trick can hide a clause from
it. A query may run only when its summary says it is a read (query type "r") and its plan holds
no operator that reaches outside the graph or administers the server, even from a read-only
transaction: LOAD CSV (files and URLs), procedures off a small allowlist, SHOW / TERMINATE
commands, CALL { } IN TRANSACTIONS, or any operator planned on another database.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from provgraph.query.errors import ForbiddenQueryError

# Read-only procedures; every other procedure is refused. Neo4j Community cannot say which
# procedures write or what they reach (db.* and dbms.* hold admin procedures, and some of them,
# such as db.clearQueryCaches, run in a read transaction).
READ_ONLY_PROCEDURES = (
    "db.labels",
    "db.relationshipTypes",
    "db.propertyKeys",
    "db.schema.visualization",
    "db.schema.nodeTypeProperties",
    "db.schema.relTypeProperties",
)
_ALLOWED = frozenset(name.lower() for name in READ_ONLY_PROCEDURES)


def allowed_procedure(name: str) -> bool:
    """Whether `name` (as written, any case) is on the read-only allowlist."""
    return name.lower() in _ALLOWED


def refuse_procedure(name: str) -> ForbiddenQueryError:
    return ForbiddenQueryError.because(
        f"procedure {name or '?'} is not on the read-only allowlist "
        f"({', '.join(READ_ONLY_PROCEDURES)})"
    )


QUERY_TYPES = {
    "w": "it writes to the graph",
    "rw": "it reads and writes the graph",
    "s": "it changes the schema or is an administration command",
}

# Operators refused by exact name, and by prefix (administration commands are planned as
# ShowTransactions, TerminateTransactions, ShowSettings, ..., AdministrationCommand).
_REFUSED_OPERATORS = {
    "LoadCSV": "LOAD CSV reads files or URLs from the server and is not accepted",
    "TransactionApply": "CALL { ... } IN TRANSACTIONS commits batches of its own",
    "TransactionForeach": "CALL { ... } IN TRANSACTIONS commits batches of its own",
    "AdministrationCommand": "administration commands are not accepted",
}
_COMMAND_PREFIXES = ("Show", "Terminate", "Create", "Drop", "Alter", "Grant", "Deny", "Revoke")
_PROCEDURE_CALL = "ProcedureCall"


def check_summary(query_type: str | None, plan: Mapping[str, Any] | None, database: str) -> None:
    """Raise `ForbiddenQueryError` unless `EXPLAIN` found a plain read of `database`."""
    if query_type != "r":
        reason = QUERY_TYPES.get(str(query_type), f"its query type is {query_type!r}")
        raise ForbiddenQueryError.because(reason)
    if plan is None:  # nothing to inspect is not a proof of harmlessness
        raise ForbiddenQueryError.because("the server returned no plan to check")
    for operator in operators(plan):
        check_operator(operator, database)


def operators(plan: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every operator of a plan tree (the root first)."""
    yield plan
    for child in plan.get("children") or ():
        yield from operators(child)


def check_operator(operator: Mapping[str, Any], database: str) -> None:
    """Refuse one plan operator that reaches outside the graph or administers the server."""
    name, _, planned_on = str(operator.get("operatorType", "")).partition("@")
    if planned_on and planned_on.lower() != database.lower():
        raise ForbiddenQueryError.because(
            f"the query runs on database {planned_on!r}: only {database!r} may be queried"
        )
    if name in _REFUSED_OPERATORS:
        raise ForbiddenQueryError.because(_REFUSED_OPERATORS[name])
    if name.startswith(_COMMAND_PREFIXES) or name.endswith("Command"):
        raise ForbiddenQueryError.because(f"administration commands ({name}) are not accepted")
    if name == _PROCEDURE_CALL:
        _check_procedure(str((operator.get("args") or {}).get("Details", "")))


def procedure_name(details: str) -> str:
    """`db.labels` from a ProcedureCall's details `db.labels() :: (label :: STRING)`.

    Quoting is kept: a name that needs backticks is no built-in's, so it never matches."""
    return details.partition("(")[0].strip()


def _check_procedure(details: str) -> None:
    name = procedure_name(details)
    if not allowed_procedure(name):
        raise refuse_procedure(name)
