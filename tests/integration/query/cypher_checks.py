"""Shared by the Cypher endpoint's tests: what a refused query could have changed, and a
canary HTTP server that records every request the database server might make."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from neo4j import Driver


def snapshot(driver: Driver, project: str) -> tuple[Any, ...]:
    """What a refused query could have changed: the project's nodes, edges and properties,
    plus the schema and labels (global, so only names are compared)."""
    records, _, _ = driver.execute_query(
        "MATCH (n {project: $p}) OPTIONAL MATCH (n)-[r]-() "
        "RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels, "
        "collect(DISTINCT properties(n)) AS props",
        p=project,
    )
    indexes, _, _ = driver.execute_query("SHOW INDEXES YIELD name RETURN collect(name) AS names")
    labels, _, _ = driver.execute_query("CALL db.labels() YIELD label RETURN collect(label) AS l")
    row = records[0]
    props = sorted(str(sorted(p.items())) for p in row["props"])
    return row["nodes"], row["rels"], props, sorted(indexes[0]["names"]), sorted(labels[0]["l"])


class Canary:
    """A tiny HTTP server on loopback that answers a CSV line and records every request."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        canary = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.requests.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"a,b\n")

            def log_message(self, *_args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @contextmanager
    def running(self) -> Iterator[Canary]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


@contextmanager
def canary() -> Iterator[Canary]:
    """A running `Canary`, stopped when the block ends."""
    with Canary().running() as running:
        yield running
