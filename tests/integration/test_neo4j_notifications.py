"""The driver every service makes (`Neo4jSettings.neo4j_driver`) does not log Neo4j's
UNRECOGNIZED warnings, which a young graph answers to every statement naming a property no
event has written yet; other warnings are still logged."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from provgraph.core.settings import Neo4jSettings

pytestmark = pytest.mark.integration


def _warnings(
    neo4j_endpoint: Any, caplog: pytest.LogCaptureFixture, query: str, **config: Any
) -> list[str]:
    settings = Neo4jSettings(
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="neo4j"), settings.neo4j_driver(**config) as d:
        d.execute_query(query)
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_unrecognized_names_are_not_logged_other_warnings_are(
    neo4j_endpoint: Any, caplog: pytest.LogCaptureFixture
) -> None:
    unknown = f"never_{uuid.uuid4().hex}"
    query = f"MATCH (n:Entity) WHERE n.{unknown} IS NOT NULL RETURN count(n) AS n"
    assert _warnings(neo4j_endpoint, caplog, query) == []
    # The same statement with the classification enabled is logged: the check can fail.
    logged = _warnings(neo4j_endpoint, caplog, query, notifications_disabled_classifications=[])
    assert any(unknown in message for message in logged)
    # A warning of another kind (a deprecated function) is still logged.
    deprecated = "MATCH (n:Entity) RETURN id(n) AS i LIMIT 1"
    assert any("deprecat" in m.lower() for m in _warnings(neo4j_endpoint, caplog, deprecated))
