"""history(id) over HTTP, two projects: a reader of one never sees the other's events."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings
from provgraph.schemas import RunStarted
from provgraph.schemas.events.experiment import InputRole, RunInput, RunStartedPayload

QUERY = """query($id: ID!, $after: String) {
  history(id: $id, first: 2, after: $after) {
    items { eventId eventType actor subject project } nextCursor } }"""


@pytest.fixture()
def projects(neo4j_driver: Driver, project: str) -> Iterator[tuple[str, str, str]]:
    """Project a (the demo story) and project b, whose run read a's dataset version."""
    other = f"{project[:50]}-other"
    dataset = f"dataset:{project}/web-corpus@v2"
    payload = RunStartedPayload(
        run_id=f"{other}-{uuid.uuid4().hex[:8]}",
        inputs=(RunInput(dataset_version=dataset, role=InputRole.TRAIN),),
    )
    foreign = RunStarted.create(
        project=other, producer="https://example.com/b", actor="user:b-secret", payload=payload
    )
    events = [*demo_events(project), foreign]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    yield project, other, dataset
    neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=other)


@pytest.fixture()
def client(neo4j_driver: Driver) -> Iterator[TestClient]:
    with TestClient(create_app(QuerySettings(), driver=neo4j_driver)) as test_client:
        yield test_client


def _history(client: TestClient, headers: dict[str, str], node: str) -> list[dict[str, Any]]:
    """Every page of the node's history."""
    items: list[dict[str, Any]] = []
    after = None
    while True:
        variables = {"id": node, "after": after}
        answer = client.post(
            "/graphql", json={"query": QUERY, "variables": variables}, headers=headers
        )
        assert answer.status_code == 200, answer.text
        page = answer.json()["data"]["history"]
        items += page["items"]
        after = page["nextCursor"]
        if after is None:
            return items


def test_a_reader_of_one_project_sees_only_its_events(
    client: TestClient, access: Any, projects: tuple[str, str, str]
) -> None:
    mine, other, dataset = projects
    admin = access.headers(f"user:admin-{uuid.uuid4().hex[:6]}", global_roles=("admin",))
    reader = access.headers(f"user:reader-{uuid.uuid4().hex[:6]}", grants={mine: ("reader",)})
    everything = _history(client, admin, dataset)
    assert {e["project"] for e in everything} == {mine, other}  # b's run touched a's data
    seen = _history(client, reader, dataset)
    assert seen == [e for e in everything if e["project"] == mine]
    assert seen  # a's own events are all there
    text = str(seen)
    assert other not in text and "user:b-secret" not in text


def test_a_reader_of_the_other_project_cannot_see_the_node(
    client: TestClient, access: Any, projects: tuple[str, str, str]
) -> None:
    _, other, dataset = projects
    reader = access.headers(f"user:reader-{uuid.uuid4().hex[:6]}", grants={other: ("reader",)})
    answer = client.post(
        "/graphql", json={"query": QUERY, "variables": {"id": dataset}}, headers=reader
    )
    body = answer.json()
    assert body["data"] is None or body["data"]["history"] is None
    assert [e["extensions"]["code"] for e in body.get("errors", [])] == ["not_found"]
