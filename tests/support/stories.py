"""What the seeded stories of the query tests share: an event of the current contract at a
given time, and the command line run against the test's Neo4j."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from typing import Any

from provgraph.schemas import REGISTRY, Event


def story_event(project: str, event_type: str, payload: dict[str, Any], at: datetime) -> Event:
    """`event_type` at its current version, with `payload`, in `project`, occurred `at`."""
    model = REGISTRY.resolve(event_type, REGISTRY.current_version(event_type))
    payload_type = model.model_fields["payload"].annotation
    assert payload_type is not None
    event = model.create(
        project=project,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=payload_type.model_validate(payload),
        occurred_at=at,
    )
    assert isinstance(event, Event)
    return event


def provgraph_cli(endpoint: Any, *argv: str) -> subprocess.CompletedProcess[str]:
    """`provgraph <argv>` reading the Neo4j of `endpoint` (uri, user, password)."""
    env = {
        **os.environ,
        "PROVGRAPH_NEO4J_URI": endpoint.uri,
        "PROVGRAPH_NEO4J_USER": endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": endpoint.password,
    }
    return subprocess.run(
        [sys.executable, "-m", "provgraph.cli", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
