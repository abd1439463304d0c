"""Helpers of the end-to-end tests: the stack's admin token and waiting for the projector."""

from __future__ import annotations

import socket
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from provgraph.authz.admin import bootstrap_admin_token
from provgraph.authz.tokens import hash_token
from provgraph.cli.services import provgraph_apps
from provgraph.core.eventlog import open_event_log
from provgraph.infra.apps import Apps
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.settings import IngestSettings


def admin_token(apps: Apps) -> str:
    """The stack's bootstrap global admin token."""
    return apps.settings.admin_token_file.read_text().strip()


def bearer(token: str) -> dict[str, str]:
    return {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}


def await_principal(driver: Driver, token: str, timeout_s: float = 60) -> None:
    """Until the projector has folded the token's `token.issued` into Neo4j."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        records, _, _ = driver.execute_query(
            "MATCH (p:Principal {token_hash: $h}) RETURN count(p) AS c", h=hash_token(token)
        )
        if records[0]["c"]:
            return
        time.sleep(0.2)
    raise AssertionError(f"the projector did not apply the token within {timeout_s} s")


def await_applied(driver: Driver, project: str, count: int, timeout_s: float = 120) -> None:
    """Until the projector has applied `count` events of `project`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        records, _, _ = driver.execute_query(
            "MATCH (e:AppliedEvent {project: $p}) RETURN count(e) AS c", p=project
        )
        if records[0]["c"] >= count:
            return
        time.sleep(0.3)
    raise AssertionError(
        f"the projector did not apply {count} events of {project} in {timeout_s} s"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_apps(
    home: Path, endpoints: Any, name: str, mp: pytest.MonkeyPatch, driver: Driver
) -> Apps:
    settings = InfraSettings(home=home, ingest_port=free_port(), query_port=free_port())
    neo4j = endpoints.neo4j
    settings.env_file.parent.mkdir(parents=True, exist_ok=True)
    settings.env_file.write_text(
        f"PROVGRAPH_KAFKA_BOOTSTRAP={endpoints.kafka_bootstrap}\n"
        f"PROVGRAPH_NEO4J_URI={neo4j.uri}\nPROVGRAPH_NEO4J_USER={neo4j.user}\n"
        f"PROVGRAPH_NEO4J_PASSWORD={neo4j.password}\n"
    )
    mp.setenv("PROVGRAPH_EVENTS_TOPIC", f"{name}.events")
    mp.setenv("PROVGRAPH_DEAD_LETTER_TOPIC", f"{name}.dlq")
    mp.setenv("PROVGRAPH_PROJECTOR_GROUP", f"{name}.projector")
    mp.delenv("PROVGRAPH_AUTH_DISABLED", raising=False)
    apps = provgraph_apps(settings)
    started = apps.up()
    assert {"ingest", "projector", "query"} <= set(started)
    kafka = IngestSettings(kafka_bootstrap=endpoints.kafka_bootstrap, events_topic=f"{name}.events")
    with closing(open_event_log(kafka, client_id="e2e")) as log:
        token = bootstrap_admin_token(settings.admin_token_file, log)
    assert token is not None
    await_principal(driver, token)
    return apps
