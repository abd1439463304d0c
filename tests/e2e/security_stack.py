"""The security end-to-end tests' stack: two projects, their lineage, principals and tokens."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_helpers import admin_token, await_principal, start_apps
from neo4j import Driver

from provgraph.authz.admin import access_event, token_issued
from provgraph.authz.tokens import new_token
from provgraph.infra.apps import Apps
from provgraph.schemas import (
    DatasetVersionCreated,
    EntityDeleted,
    Event,
    ModelVersionRegistered,
    RunStarted,
)
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.governance import AccessRole, EntityDeletedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload
from provgraph.schemas.events.tokens import GlobalRole

PRODUCER = "https://example.com/security-test"
CACHE_BOUND_S = 1.0  # the services' default auth_cache_s

# principal -> (global roles, {project key: roles}); "A"/"B" stand for the two projects.
PRINCIPALS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    "auditor": (("auditor",), {}),
    "reader-a": ((), {"A": ("reader",)}),
    "reader-b": ((), {"B": ("reader",)}),
    "reader-ab": ((), {"A": ("reader",), "B": ("reader",)}),
    "writer-a": ((), {"A": ("writer",)}),
    "deleter-a": ((), {"A": ("writer", "delete")}),
    "admin-a": ((), {"A": ("admin",)}),
    "nobody": ((), {}),
    "to-revoke": ((), {"A": ("reader",)}),
}


@dataclass
class Stack:
    """The running services, the two projects, the ids of their lineage and every token."""

    apps: Apps
    driver: Driver
    a: str
    b: str
    tokens: dict[str, str]
    names: dict[str, str]

    @property
    def base_model(self) -> str:
        return f"model:{self.a}/base@1.0"

    @property
    def chat_model(self) -> str:
        return f"model:{self.b}/chat@1.0"

    def headers(self, who: str | None) -> dict[str, str]:
        return {} if who is None else {"Authorization": f"Bearer {self.tokens[who]}"}

    def ingest(self, who: str | None, events: list[Event], path: str = "/v1/events") -> Any:
        body = b"[" + b",".join(e.to_json_bytes() for e in events) + b"]"
        url = f"{self.apps.settings.ingest_url}{path}"
        headers = {"Content-Type": "application/json", **self.headers(who)}
        return httpx.post(url, content=body, headers=headers, timeout=30)

    def graphql(self, who: str | None, query: str) -> Any:
        url = f"{self.apps.settings.query_url}/graphql"
        return httpx.post(url, json={"query": query}, headers=self.headers(who), timeout=30)

    def cypher(self, who: str | None) -> Any:
        url = f"{self.apps.settings.query_url}/v1/cypher"
        body = {"query": "MATCH (n:Entity {project: $p}) RETURN count(n) AS c", "parameters": {}}
        body["parameters"] = {"p": self.a}
        return httpx.post(url, json=body, headers=self.headers(who), timeout=30)

    def cli(self, *argv: str) -> str:
        # The environment names this stack's topic (PROVGRAPH_EVENTS_TOPIC) and Kafka.
        done = subprocess.run(
            [sys.executable, "-m", "provgraph.cli", *argv],
            env=dict(os.environ),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout.strip()


def meta(project: str) -> dict[str, Any]:
    return {"project": project, "producer": PRODUCER, "actor": "user:test"}


def lineage_events(a: str, b: str) -> list[Event]:
    """A: corpus -> run -> base model. B: a run fine-tunes A's base model -> chat model."""
    run_a, run_b = f"pre-{uuid.uuid4().hex[:8]}", f"ft-{uuid.uuid4().hex[:8]}"
    corpus = DatasetVersionCreatedPayload(name="corpus", version="v1", storage_uri="s3://a/c/")
    uses = (RunInput(dataset_version=f"dataset:{a}/corpus@v1", role="train"),)
    return [
        DatasetVersionCreated.create(**meta(a), payload=corpus),
        RunStarted.create(**meta(a), payload=RunStartedPayload(run_id=run_a, inputs=uses)),
        ModelVersionRegistered.create(
            **meta(a),
            payload=ModelVersionRegisteredPayload(
                name="base", version="1.0", produced_by_run=f"run:{run_a}"
            ),
        ),
        RunStarted.create(
            **meta(b), payload=RunStartedPayload(run_id=run_b, base_model=f"model:{a}/base@1.0")
        ),
        ModelVersionRegistered.create(
            **meta(b),
            payload=ModelVersionRegisteredPayload(
                name="chat", version="1.0", produced_by_run=f"run:{run_b}"
            ),
        ),
    ]


def access_events(name: str, grants: dict[str, tuple[str, ...]], a: str, b: str) -> list[Event]:
    projects = {"A": a, "B": b}
    return [
        access_event(name, projects[key], AccessRole(role), "user:test", grant=True)
        for key, roles in grants.items()
        for role in roles
    ]


def await_true(driver: Driver, query: str, timeout_s: float = 60, **params: Any) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        records, _, _ = driver.execute_query(query, params)
        if records and records[0][0]:
            return
        time.sleep(0.2)
    raise AssertionError(f"not projected within {timeout_s} s: {query} {params}")


def run_event(project: str) -> RunStarted:
    return RunStarted.create(
        **meta(project), payload=RunStartedPayload(run_id=f"x-{uuid.uuid4().hex[:8]}")
    )


def delete_event(entity: str, project: str) -> EntityDeleted:
    payload = EntityDeletedPayload(entity=entity, reason="takedown")
    return EntityDeleted.create(**meta(project), payload=payload)


@contextmanager
def open_stack(home: Path, endpoints: Any, driver: Driver, prefix: str) -> Iterator[Stack]:
    """The services on a topic of their own, every principal of `PRINCIPALS` with its token
    and grants, and the lineage of projects A and B, all projected; removed afterwards."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    a, b = f"{name}-a", f"{name}-b"
    with pytest.MonkeyPatch.context() as mp:
        apps = start_apps(home, endpoints, name, mp, driver)
        mp.setenv("PROVGRAPH_KAFKA_BOOTSTRAP", endpoints.kafka_bootstrap)
        tokens = {"admin": admin_token(apps)}
        stack = Stack(apps, driver, a, b, tokens, {})
        setup: list[Event] = []
        for who, (roles, grants) in PRINCIPALS.items():
            tokens[who] = new_token()
            principal = stack.names[who] = f"service:{name}-{who}"
            setup.append(token_issued(principal, tokens[who], [GlobalRole(r) for r in roles], "t"))
            setup += access_events(principal, grants, a, b)
        # Tokens and grants travel like any event: through ingest, as the global admin.
        assert stack.ingest("admin", setup).status_code == 202
        assert stack.ingest("admin", lineage_events(a, b)).status_code == 202
        for who in PRINCIPALS:
            await_principal(driver, tokens[who])
        await_true(
            driver,
            "MATCH (e:AppliedEvent) WHERE e.project IN $p RETURN count(e) >= $n",
            p=[a, b],
            n=len(setup) - len(PRINCIPALS) + 5,
        )
        try:
            yield stack
        finally:
            apps.down()
            driver.execute_query("MATCH (n) WHERE n.project IN $p DETACH DELETE n", p=[a, b])
