"""The query service's one way to read (`ReadSession`) against the REAL Neo4j server: records
in read mode, a read past the time limit stopped by the server and answered `limit_exceeded`,
a refused statement answered `unavailable` with the server's code and none of its text; the
session serves the next read after each failure."""

from __future__ import annotations

import pytest
from neo4j import Driver

from provgraph.core.errors import UnavailableError
from provgraph.query.errors import LimitExceededError
from provgraph.query.read.session import ReadSession

pytestmark = pytest.mark.integration

# Counts a billion rows: minutes of work for the server, stopped by the transaction's limit.
SLOW = "UNWIND range(1, 1000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n"


def test_a_read_answers_its_records(neo4j_driver: Driver) -> None:
    session = ReadSession(neo4j_driver, "neo4j", timeout_s=30.0)
    records = session.run("UNWIND range(1, $n) AS x RETURN x", {"n": 2500})
    assert [r["x"] for r in records] == list(range(1, 2501))  # more than one PULL of 1,000


def test_a_read_past_its_limit_is_stopped_and_the_next_read_answers(
    neo4j_driver: Driver,
) -> None:
    session = ReadSession(neo4j_driver, "neo4j", timeout_s=0.5)
    with pytest.raises(LimitExceededError) as caught:
        session.run(SLOW, {})
    assert caught.value.code == "limit_exceeded"
    assert "0.5 s limit" in str(caught.value)
    assert session.run("RETURN 1 AS one", {})[0]["one"] == 1


def test_a_write_is_refused_in_the_read_transaction_without_the_servers_text(
    neo4j_driver: Driver,
) -> None:
    session = ReadSession(neo4j_driver, "neo4j", timeout_s=30.0)
    with pytest.raises(UnavailableError) as caught:
        session.run("CREATE (:ReadSessionProbe {at: $at})", {"at": 1})
    assert str(caught.value) == "the graph database could not answer"
    assert caught.value.details == {"neo4j_code": "Neo.ClientError.Statement.AccessMode"}
    found = neo4j_driver.execute_query("MATCH (n:ReadSessionProbe) RETURN count(n) AS n")
    assert found.records[0]["n"] == 0  # nothing was written
    assert session.run("RETURN 2 AS two", {})[0]["two"] == 2
