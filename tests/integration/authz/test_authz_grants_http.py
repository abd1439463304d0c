"""Grants over HTTP, through the ingest service against the real Kafka and Neo4j: a project
admin grants the ordinary roles, never `admin` or `delete` (to itself or anyone)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provgraph.authz.admin import access_event
from provgraph.ingest.app import create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas.events.governance import AccessRole


@pytest.fixture()
def ingest(settings: IngestSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def _grant(principal: str, project: str, role: AccessRole, actor: str) -> Any:
    event = access_event(principal, project, role, actor, grant=True)
    return json.loads(event.to_json_bytes())


def test_a_project_admin_cannot_grant_admin_or_delete(
    ingest: TestClient, access: Any, project: str
) -> None:
    me = f"user:pa-{uuid.uuid4().hex[:8]}"
    headers = access.headers(me, grants={project: ("admin",)})
    for role in (AccessRole.DELETE, AccessRole.ADMIN):
        for grantee in (me, "user:friend"):
            answer = ingest.post(
                "/v1/events", json=[_grant(grantee, project, role, me)], headers=headers
            )
            assert answer.status_code == 403, answer.text
            assert answer.json()["error"] == {
                "code": "forbidden",
                "message": f"granting the {role.value!r} role needs the global admin role",
                "details": {"index": 0, "right": "global admin", "event_type": "access.granted"},
            }
    ordinary = [_grant("user:friend", project, role, me) for role in (AccessRole.READER,)]
    assert ingest.post("/v1/events", json=ordinary, headers=headers).status_code == 202


def test_a_global_admin_grants_delete(
    ingest: TestClient, admin_headers: dict[str, str], project: str
) -> None:
    grant = _grant("user:friend", project, AccessRole.DELETE, "user:root")
    answer = ingest.post("/v1/events", json=[grant], headers=admin_headers)
    assert answer.status_code == 202, answer.text
