"""The launcher's Neo4j configuration on a private server: LOAD CSV reads no URL and no file
even in a plain write transaction with no guard in front, and what provgraph itself calls
(the projector's schema statements, the endpoint's allowlisted procedures) still works."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cypher_checks import Canary, canary
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import ClientError

from provgraph.query.http.cypher_plan import READ_ONLY_PROCEDURES


@pytest.fixture()
def driver(private_neo4j: Any) -> Iterator[Driver]:
    endpoint = private_neo4j.neo4j
    with GraphDatabase.driver(endpoint.uri, auth=(endpoint.user, endpoint.password)) as found:
        yield found


@pytest.fixture()
def server() -> Iterator[Canary]:
    with canary() as running:
        yield running


def _load(driver: Driver, url: str) -> ClientError:
    with pytest.raises(ClientError) as caught:
        driver.execute_query("LOAD CSV FROM $url AS row RETURN row", url=url)
    return caught.value


def test_load_csv_reads_nothing_and_provgraph_still_runs(driver: Driver, server: Canary) -> None:
    # One test, one server start (a private Neo4j takes most of a minute to start).
    _assert_load_csv_fetches_no_url_and_reads_no_file(driver, server)
    _assert_what_provgraph_calls_still_runs(driver)


def _assert_load_csv_fetches_no_url_and_reads_no_file(driver: Driver, server: Canary) -> None:
    port = server.url.rsplit(":", 1)[1]
    for url in (
        f"{server.url}/a",
        f"http://localhost:{port}/b",
        f"http://[::1]:{port}/c",
        f"https://127.0.0.1:{port}/d",
        f"ftp://127.0.0.1:{port}/e",
    ):
        refused = _load(driver, url)
        assert refused.code == "Neo.ClientError.Statement.ExternalResourceFailed"
        assert "cypher_ip_blocklist" in str(refused.message), url
    for path in ("file:///etc/passwd", "file:///x.csv"):
        assert "allow_csv_import_from_file_urls" in str(_load(driver, path).message)
    assert server.requests == []


def _assert_what_provgraph_calls_still_runs(driver: Driver) -> None:
    # The fixture applied the projector's schema (CREATE CONSTRAINT ..., db.awaitIndexes).
    for name in READ_ONLY_PROCEDURES:
        records, _, _ = driver.execute_query(f"CALL {name}()")
        assert isinstance(records, list), name
    records, _, _ = driver.execute_query("SHOW PROCEDURES YIELD name RETURN collect(name) AS n")
    loaded = set(records[0]["n"])
    assert set(READ_ONLY_PROCEDURES) <= loaded
    # Built-ins are not subject to the server's allowlist: the endpoint's own check refuses
    # these (tests/integration/query/test_query_cypher_bypass.py).
    assert {"dbms.components", "db.clearQueryCaches"} <= loaded
