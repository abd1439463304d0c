"""Unit tests run pure code: no unit test may reach a live server, whatever the environment.

`make test` exports the dev stack's endpoints (.provgraph/env) for the integration tests; here
they point at a closed loopback port instead, so a unit test that builds a real Kafka or Neo4j
client from the settings fails (refused) rather than passing against whatever server answers.
A test that needs other values sets its own.
"""

from __future__ import annotations

import pytest

CLOSED = "127.0.0.1:9"  # the discard port: nothing listens on loopback


@pytest.fixture(autouse=True)
def _no_live_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_NEO4J_URI", f"bolt://{CLOSED}")
    monkeypatch.setenv("PROVGRAPH_NEO4J_PASSWORD", "unit-tests-reach-no-server")
    monkeypatch.setenv("PROVGRAPH_KAFKA_BOOTSTRAP", CLOSED)
