"""GraphReader lookups against real Neo4j: nodes, asOf, history, lists, find, search, whois."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Direction, NodeWhere, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.query.read.readers import neo4j_readers
from provgraph.schemas import EntityDeleted, Event
from provgraph.schemas.events.governance import EntityDeletedPayload

EVERYTHING = Scope.everything()
BEFORE_V2 = "2026-01-05T10:05:00.000000Z"  # web-corpus v1 exists, v2 (10:10) not yet


@pytest.fixture()
def reader(neo4j_driver: Driver, project: str) -> ReadModel:
    GraphWriter(neo4j_driver).write(
        [project_event(e) for e in demo_events(project, with_sweep=False)]
    )
    return neo4j_readers(neo4j_driver).graph


def _delete(driver: Driver, project: str, entity: str) -> None:
    event: Event = EntityDeleted.create(
        project=project,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=EntityDeletedPayload(entity=entity, reason="shut down"),
        occurred_at=datetime(2026, 1, 6, 9, 0, tzinfo=UTC),
    )
    GraphWriter(driver).write([project_event(event)])


def test_node_views_hide_internal_stamps(reader: ReadModel, project: str) -> None:
    view = reader.node(f"dataset:{project}/web-corpus@v2", EVERYTHING)
    assert view is not None and view.type == "DatasetVersion" and view.project == project
    assert view.props["name"] == "web-corpus" and view.props["version"] == "v2"
    assert not any(k.startswith("_v") or k in ("id", "project") for k in view.props)
    missing = reader.nodes(["nope", view.id], Scope(frozenset({project})))
    assert [v.id if v else None for v in missing] == [None, view.id]
    assert reader.node(view.id, Scope(frozenset({"someone-else"}))) is None


def test_as_of_before_and_after_a_change(reader: ReadModel, project: str) -> None:
    web1, web2 = f"dataset:{project}/web-corpus@v1", f"dataset:{project}/web-corpus@v2"
    assert reader.node(web2, EVERYTHING, as_of=BEFORE_V2) is None
    assert reader.node(web1, EVERYTHING, as_of=BEFORE_V2) is not None
    early = reader.lineage(web1, EVERYTHING, direction=Direction.DOWNSTREAM, as_of=BEFORE_V2)
    assert early is not None and early.nodes == ()
    later = reader.lineage(web1, EVERYTHING, direction=Direction.DOWNSTREAM, depth=1)
    assert later is not None and {n.id for n in later.nodes} == {web2}


def test_deleted_later_still_shows_as_of_before(
    reader: ReadModel, neo4j_driver: Driver, project: str
) -> None:
    deploy = f"deployment:{project}/chat-api"
    _delete(neo4j_driver, project, deploy)
    now = reader.node(deploy, EVERYTHING)
    assert now is not None and now.deleted_at == "2026-01-06T09:00:00.000000Z"
    assert reader.list_nodes("Deployment", EVERYTHING, NodeWhere(project=project)).items == ()
    web1 = f"dataset:{project}/web-corpus@v1"
    assert deploy not in {i.node.id for i in reader.impact(web1, EVERYTHING) or []}
    then = reader.impact(web1, EVERYTHING, as_of="2026-01-05T14:00:00.000000Z") or []
    assert deploy in {i.node.id for i in then}


def test_neighbours_in_one_batch(reader: ReadModel, project: str) -> None:
    pt, ft = f"run:{project}-demo-pretrain-001", f"run:{project}-demo-finetune-001"
    used = reader.neighbours([pt, "nope", ft], "USED", Direction.UPSTREAM, EVERYTHING)
    assert [[(e.props["role"], n.id) for e, n in row] for row in used] == [
        [
            ("validation", f"dataset:{project}/heldout@v1"),
            ("train", f"dataset:{project}/web-corpus@v2"),
        ],
        [],
        [("train", f"dataset:{project}/instruct@v1-clean")],
    ]
    made = reader.neighbours([pt], "GENERATED_BY", Direction.DOWNSTREAM, EVERYTHING)[0]
    assert {n.type for _, n in made} == {"Checkpoint", "ModelVersion"}
    assert all(e.dst == pt for e, _ in made)
    with pytest.raises(InvalidArgumentError):
        reader.neighbours([pt], "TOUCHED", Direction.UPSTREAM, EVERYTHING)


def test_history_newest_first_and_paginated(reader: ReadModel, project: str) -> None:
    chat = f"model:{project}/chat-1b@1.0.0"
    seen: list[Any] = []
    page = reader.history(chat, EVERYTHING, first=2)
    while page is not None:
        seen.extend(page.items)
        page = (
            reader.history(chat, EVERYTHING, first=2, after=page.next_cursor)
            if page.next_cursor
            else None
        )
    types = [e.event_type for e in seen]
    assert types == [
        "deployment.created", "model.version.status.changed", "model.version.evaluated",
        "model.version.registered",
    ]  # fmt: skip
    assert [e.occurred_at for e in seen] == sorted((e.occurred_at for e in seen), reverse=True)
    assert seen[0].actor == "user:demo"
    assert reader.history("nope", EVERYTHING) is None
    with pytest.raises(InvalidArgumentError):
        reader.history(chat, EVERYTHING, after="not a cursor!")


def test_list_filters_and_pagination(reader: ReadModel, project: str) -> None:
    scope = Scope(frozenset({project}))
    first = reader.list_nodes("DatasetVersion", scope, first=4)
    rest = reader.list_nodes("DatasetVersion", scope, first=4, after=first.next_cursor)
    ids = [n.id for n in first.items + rest.items]
    assert len(ids) == 6 and len(set(ids)) == 6 and rest.next_cursor is None
    assert ids[:2] == [f"dataset:{project}/web-corpus@v1", f"dataset:{project}/web-corpus@v2"]
    exp = f"experiment:{project}/exp-001"
    runs = reader.list_nodes("Run", scope, NodeWhere(experiment=exp, status="completed"))
    assert [n.props["name"] for n in runs.items] == ["pretrain-1b", "chat-sft"]

    def names(where: NodeWhere) -> list[str]:
        return [n.props["name"] for n in reader.list_nodes("Run", scope, where).items]

    assert names(NodeWhere(param=("lr", "1e-05"))) == ["chat-sft"]
    assert names(NodeWhere(param=("batch_size", "512"))) == ["pretrain-1b"]
    window = reader.list_nodes(
        "DatasetVersion",
        scope,
        NodeWhere(since="2026-01-05T10:10:00.000000Z", until="2026-01-05T10:30:00.000000Z"),
    )
    assert [n.props["version"] for n in window.items] == ["v2", "v1"]
    with pytest.raises(InvalidArgumentError):
        reader.list_nodes("Run", scope, first=501)


def test_find_by_natural_keys(reader: ReadModel, project: str) -> None:
    found = reader.find(
        "ModelVersion", EVERYTHING, project=project, name="base-1b", version="1.0.0"
    )
    assert found is not None and found.id == f"model:{project}/base-1b@1.0.0"
    ds = reader.find(
        "DatasetVersion", EVERYTHING, project=project, name="instruct", version="v1-clean"
    )
    assert ds is not None and ds.id == f"dataset:{project}/instruct@v1-clean"
    exp = reader.find("Experiment", EVERYTHING, project=project, number=1)
    assert exp is not None and exp.id == f"experiment:{project}/exp-001"
    model = reader.find("Model", EVERYTHING, project=project, name="chat-1b")
    assert model is not None and model.id == f"model:{project}/chat-1b"
    assert reader.find("Model", Scope(frozenset({"x"})), project=project, name="chat-1b") is None
    with pytest.raises(InvalidArgumentError):
        reader.find("Nonsense", EVERYTHING, name="x")


def test_search_is_case_insensitive(reader: ReadModel, project: str) -> None:
    scope = Scope(frozenset({project}))
    hits = reader.search("CHAT", scope)
    assert {n.id for n in hits} == {
        f"deployment:{project}/chat-api",
        f"model:{project}/chat-1b",
        f"model:{project}/chat-1b@1.0.0",
        f"run:{project}-demo-finetune-001",
    }
    only = reader.search("chat", scope, types=["ModelVersion"])
    assert [n.id for n in only] == [f"model:{project}/chat-1b@1.0.0"]
    assert len(reader.search("", scope, first=3)) == 3


def test_artifact_by_uri_and_checksum(reader: ReadModel, project: str) -> None:
    scope = Scope(frozenset({project}))
    ckpt = f"checkpoint:{project}-demo-pretrain-001/1000"
    for uri in ("s3://demo/ckpt/pt/1000/", "s3://demo/ckpt/pt/1000"):
        assert [n.id for n in reader.artifact(scope, uri=uri)] == [ckpt]
    same_hash = reader.artifact(scope, checksum="sha256:" + "ab" * 32)
    assert {n.type for n in same_hash} == {"DatasetVersion", "Checkpoint", "ModelVersion"}
    assert len(same_hash) == 6 + 3 + 2
    assert reader.artifact(scope, uri="s3://nowhere/") == []
    with pytest.raises(InvalidArgumentError):
        reader.artifact(scope)
