"""The plan layer of the Cypher guard: what the server's EXPLAIN summary must look like."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.query.errors import ForbiddenQueryError
from provgraph.query.http.cypher_plan import check_summary, procedure_name

DB = "neo4j"


def op(name: str, details: str = "", *children: dict[str, Any], db: str = DB) -> dict[str, Any]:
    """A plan operator as the driver gives it (`summary.plan`)."""
    return {
        "operatorType": f"{name}@{db}",
        "args": {"Details": details},
        "identifiers": [],
        "children": list(children),
    }


def results(*children: dict[str, Any]) -> dict[str, Any]:
    return op("ProduceResults", "x", *children)


LABELS = "db.labels() :: (label :: STRING)"

ACCEPTED = {
    "scan": results(op("Projection", "n.id AS x", op("NodeByLabelScan", "n:Run"))),
    "allowlisted procedure": results(op("ProcedureCall", LABELS)),
    "allowlisted, any case": results(op("ProcedureCall", "DB.LABELS() :: (label :: STRING)")),
    "nested apply": results(op("Apply", "", op("Argument", "x"), op("Unwind", "$l AS x"))),
}


@pytest.mark.parametrize("plan", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_read_plans_pass(plan: dict[str, Any]) -> None:
    check_summary("r", plan, DB)


REFUSED = {
    "load csv": (results(op("LoadCSV", "r")), "LOAD CSV"),
    "load csv in a subquery": (
        results(op("Apply", "", op("Unwind", "$l AS x"), op("LoadCSV", "r", op("Argument")))),
        "LOAD CSV",
    ),
    "terminate transactions": (
        results(op("TerminateTransactions", "transactions(neo4j-transaction-1)")),
        "administration commands",
    ),
    "show transactions": (results(op("ShowTransactions", "allTransactions")), "administration"),
    "show settings": (results(op("ShowSettings", "allSettings")), "administration"),
    "system command": (op("AdministrationCommand", db="system"), "database 'system'"),
    "in transactions": (
        results(op("TransactionApply", "IN TRANSACTIONS OF 1000 ROWS")),
        "IN TRANSACTIONS",
    ),
    "dbms procedure": (
        results(op("ProcedureCall", "dbms.components() :: (name :: STRING)")),
        "procedure dbms.components",
    ),
    "clear caches": (
        results(op("ProcedureCall", "db.clearQueryCaches() :: (value :: STRING)")),
        "procedure db.clearQueryCaches",
    ),
    "plugin procedure": (
        results(op("ProcedureCall", "apoc.load.json($url) :: (value :: MAP)")),
        "procedure apoc.load.json",
    ),
    "quoted look-alike": (
        results(op("ProcedureCall", "`db.labels`() :: (label :: STRING)")),
        "not on the read-only allowlist",
    ),
    "deep procedure": (
        results(op("EagerAggregation", "count(*)", op("Optional", "", op("ProcedureCall", "x()")))),
        "procedure x",
    ),
    "another database": (results(op("AllNodesScan", "n", db="other")), "database 'other'"),
}


@pytest.mark.parametrize(("plan", "reason"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_plans(plan: dict[str, Any], reason: str) -> None:
    with pytest.raises(ForbiddenQueryError) as caught:
        check_summary("r", plan, DB)
    assert caught.value.message.startswith("refused: ")
    assert reason in caught.value.details["reason"]


@pytest.mark.parametrize(
    ("query_type", "reason"),
    [
        ("w", "it writes to the graph"),
        ("rw", "it reads and writes the graph"),
        ("s", "it changes the schema"),
        (None, "its query type is None"),
        ("x", "its query type is 'x'"),
    ],
)
def test_only_read_query_types_pass(query_type: str | None, reason: str) -> None:
    with pytest.raises(ForbiddenQueryError) as caught:
        check_summary(query_type, ACCEPTED["scan"], DB)
    assert caught.value.details["reason"].startswith(reason)


def test_a_missing_plan_is_refused() -> None:
    with pytest.raises(ForbiddenQueryError):
        check_summary("r", None, DB)


def test_procedure_name_keeps_quoting() -> None:
    assert procedure_name(LABELS) == "db.labels"
    assert procedure_name("db.propertyKeys() :: (propertyKey :: STRING)") == "db.propertyKeys"
    assert procedure_name("`db`.`labels`() :: ()") == "`db`.`labels`"
