"""The stack as `make up` runs it: ingest, projector and query as real background processes
on their own topic and consumer group, against the session's real Kafka and Neo4j.

Authentication is on, as in production: each stack gets its bootstrap admin token the way
`provgraph infra up` makes one (an event in the stack's log, the text in `admin-token`)."""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import admin_token, await_applied, bearer, start_apps
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.infra.apps import Apps


@pytest.fixture()
def apps(tmp_path: Path, endpoints: Any, unique_name: str, neo4j_driver: Driver) -> Iterator[Apps]:
    """The three services for one test."""
    with pytest.MonkeyPatch.context() as mp:
        running = start_apps(tmp_path / "home", endpoints, unique_name, mp, neo4j_driver)
        try:
            yield running
        finally:
            running.down()


@dataclass(frozen=True)
class DemoStack:
    """Running services with the demo story of `project` loaded through HTTP ingest."""

    apps: Apps
    project: str

    def graphql(self, query: str) -> dict[str, Any]:
        body = json.dumps({"query": query}).encode()
        request = urllib.request.Request(
            f"{self.apps.settings.query_url}/graphql",
            data=body,
            method="POST",
            headers=bearer(admin_token(self.apps)),
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            answer: dict[str, Any] = json.loads(response.read())
        return answer


def post_events(apps: Apps, events: list[Any]) -> dict[str, Any]:
    body = b"[" + b",".join(event.to_json_bytes() for event in events) + b"]"
    request = urllib.request.Request(
        f"{apps.settings.ingest_url}/v1/events",
        data=body,
        method="POST",
        headers=bearer(admin_token(apps)),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 202
        answer: dict[str, Any] = json.loads(response.read())
    return answer


@pytest.fixture(scope="module")
def demo_stack(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[DemoStack]:
    """One stack per module, the demo story loaded via POST /v1/events and fully projected."""
    name = f"t-e2e-{uuid.uuid4().hex[:8]}"
    events = demo_events(name)
    with pytest.MonkeyPatch.context() as mp:
        apps = start_apps(tmp_path_factory.mktemp("stack"), endpoints, name, mp, neo4j_driver)
        try:
            post_events(apps, events)
            await_applied(neo4j_driver, name, len(events))
            yield DemoStack(apps, name)
        finally:
            apps.down()
            neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=name)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The chaos run's time limit follows its length (short form or --chaos-long)."""
    chaos = [item for item in items if item.get_closest_marker("chaos")]
    if chaos:
        from support.chaos import timeout_s

        for item in chaos:
            item.add_marker(pytest.mark.timeout(timeout_s(config)))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many documentation examples ran, and which were skipped by design (and why)."""
    reports = [
        r
        for key in ("passed", "failed", "skipped")
        for r in terminalreporter.stats.get(key, [])
        if "test_doc_example[" in getattr(r, "nodeid", "") and r.when in ("call", "setup")
    ]
    if not reports:
        return
    ran = [r for r in reports if not r.skipped]
    skipped = [r for r in reports if r.skipped]
    terminalreporter.write_line(
        f"documentation examples: {len(ran)} run, {len(skipped)} skipped by design"
    )
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        where = report.nodeid.split("[", 1)[1].rstrip("]")
        terminalreporter.write_line(f"  {where}: {str(reason).removeprefix('Skipped: ')}")
