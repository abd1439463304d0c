"""Infra settings come from PROVGRAPH_* env vars with loopback defaults."""

from __future__ import annotations

import os

import pytest

from provgraph.infra.settings import InfraSettings
from provgraph.schemas.graph import Label, schema_statements


def test_defaults_are_loopback_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [key for key in os.environ if key.startswith("PROVGRAPH_")]:
        monkeypatch.delenv(name)
    s = InfraSettings()
    assert (s.kafka_port, s.kafka_controller_port) == (9092, 9093)
    assert (s.neo4j_bolt_port, s.neo4j_http_port, s.ingest_port, s.query_port) == (
        7687,
        7474,
        8080,
        8081,
    )
    assert s.kafka_bootstrap == "127.0.0.1:9092"


def test_ports_come_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_KAFKA_PORT", "19092")
    monkeypatch.setenv("PROVGRAPH_NEO4J_BOLT_PORT", "17687")
    s = InfraSettings()
    assert s.kafka_bootstrap == "127.0.0.1:19092"
    assert s.neo4j_uri == "neo4j://127.0.0.1:17687"


def test_schema_statements_are_idempotent_and_cover_every_label() -> None:
    statements = schema_statements()
    assert all("IF NOT EXISTS" in st for st in statements)
    for label in Label:
        assert any(f"(n:{label.value})" in st and "n.id IS UNIQUE" in st for st in statements)
    assert len(set(statements)) == len(statements)
