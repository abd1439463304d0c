"""GraphReader traversals against real Neo4j: lineage, impact, paths, cycles and scope."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Direction, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas import DatasetVersionCreated, DeploymentRetired, Event
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.deployment import DeploymentRetiredPayload

EVERYTHING = Scope.everything()


def _load(driver: Driver, events: Sequence[Event]) -> None:
    GraphWriter(driver).write([project_event(e) for e in events])


def _event(cls: Any, payload: Any, project: str, day: int = 6) -> Event:
    event: Event = cls.create(
        project=project,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=payload,
        occurred_at=datetime(2026, 1, day, 9, 0, tzinfo=UTC),
    )
    return event


def _version(project: str, name: str, derived: str | None = None) -> Event:
    raw: dict[str, Any] = {"name": name, "version": "v1", "storage_uri": f"s3://t/{name}/v1/"}
    if derived:
        raw["derived_from"] = [{"dataset_version": derived, "transform": "mix"}]
    payload = DatasetVersionCreatedPayload.model_validate(raw)
    return _event(DatasetVersionCreated, payload, project)


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> Iterator[tuple[ReadModel, dict[str, str]]]:
    _load(neo4j_driver, demo_events(project, with_sweep=False))
    p = project
    ids = {
        "web1": f"dataset:{p}/web-corpus@v1",
        "web2": f"dataset:{p}/web-corpus@v2",
        "web": f"dataset:{p}/web-corpus",
        "held1": f"dataset:{p}/heldout@v1",
        "held": f"dataset:{p}/heldout",
        "ins1": f"dataset:{p}/instruct@v1",
        "ins_clean": f"dataset:{p}/instruct@v1-clean",
        "ins": f"dataset:{p}/instruct",
        "pt": f"run:{p}-demo-pretrain-001",
        "ft": f"run:{p}-demo-finetune-001",
        "ck1000": f"checkpoint:{p}-demo-pretrain-001/1000",
        "ck2000": f"checkpoint:{p}-demo-pretrain-001/2000",
        "ck300": f"checkpoint:{p}-demo-finetune-001/300",
        "base": f"model:{p}/base-1b@1.0.0",
        "base_model": f"model:{p}/base-1b",
        "chat": f"model:{p}/chat-1b@1.0.0",
        "chat_model": f"model:{p}/chat-1b",
        "env": f"environment:{p}/trainer-2026-01",
        "exp": f"experiment:{p}/exp-001",
        "deploy": f"deployment:{p}/chat-api",
    }
    found, _, _ = neo4j_driver.execute_query(
        "MATCH (e:Evaluation {project: $p}) RETURN e.id AS id", p=p
    )
    ids["eval"] = found[0]["id"]
    yield neo4j_readers(neo4j_driver).graph, ids


UPSTREAM_OF_CHAT = {
    "ck300": 1, "chat_model": 1, "ft": 1,
    "ins_clean": 2, "env": 2, "exp": 2, "base": 2,
    "ins1": 3, "ins": 3, "pt": 3, "ck2000": 3, "base_model": 3,
    "web2": 4, "held1": 4, "ck1000": 4,
    "web1": 5, "web": 5, "held": 5,
}  # fmt: skip
DOWNSTREAM_OF_WEB1 = {
    "web2": 1, "pt": 2, "ck1000": 3, "ck2000": 3, "base": 3,
    "ft": 4, "ck300": 5, "chat": 5, "deploy": 6, "eval": 6,
}  # fmt: skip


def _depths(ids: dict[str, str], expected: dict[str, int], root: str, upto: int) -> dict[str, int]:
    wanted = {ids[k]: d for k, d in expected.items() if d <= upto}
    return {ids[root]: 0, **wanted}


@pytest.mark.parametrize("depth", [1, 2, 20])
def test_upstream_of_the_chat_model(demo: Any, depth: int) -> None:
    reader, ids = demo
    lineage = reader.lineage(ids["chat"], EVERYTHING, depth=depth)
    expected = _depths(ids, UPSTREAM_OF_CHAT, "chat", depth)
    assert dict(lineage.depths) == expected
    assert {n.id for n in lineage.nodes} == set(expected) - {ids["chat"]}
    assert lineage.root.id == ids["chat"] and not lineage.truncated
    for edge in lineage.edges:
        assert edge.src in expected and edge.dst in expected
        assert not any(k.startswith("_v") for k in edge.props)
    if depth == 1:
        assert {(e.type, e.dst) for e in lineage.edges} == {
            ("EXPORTED_FROM", ids["ck300"]),
            ("VERSION_OF", ids["chat_model"]),
            ("GENERATED_BY", ids["ft"]),
            ("GENERATED_BY", ids["ft"]),
        }


@pytest.mark.parametrize("depth", [1, 2, 20])
def test_downstream_of_the_first_web_corpus(demo: Any, depth: int) -> None:
    reader, ids = demo
    lineage = reader.lineage(ids["web1"], EVERYTHING, direction=Direction.DOWNSTREAM, depth=depth)
    assert dict(lineage.depths) == _depths(ids, DOWNSTREAM_OF_WEB1, "web1", depth)


def test_both_directions_is_the_union(demo: Any) -> None:
    reader, ids = demo
    lineage = reader.lineage(ids["ft"], EVERYTHING, direction=Direction.BOTH, depth=1)
    names = ["ins_clean", "env", "exp", "base", "ck300", "chat"]
    assert dict(lineage.depths) == {ids["ft"]: 0, **{ids[k]: 1 for k in names}}


def test_types_filter_keeps_only_those_labels(demo: Any) -> None:
    reader, ids = demo
    lineage = reader.lineage(ids["chat"], EVERYTHING, depth=20, types=["DatasetVersion"])
    assert {n.id for n in lineage.nodes} == {
        ids[k] for k in ("ins_clean", "ins1", "web2", "held1", "web1")
    }
    assert {n.type for n in lineage.nodes} == {"DatasetVersion"}


def test_limit_truncates_nearest_first(demo: Any) -> None:
    reader, ids = demo
    cut = reader.lineage(ids["chat"], EVERYTHING, depth=20, limit=3)
    assert cut.truncated
    assert {n.id for n in cut.nodes} == {ids["ck300"], ids["chat_model"], ids["ft"]}
    exact = reader.lineage(ids["chat"], EVERYTHING, depth=20, limit=len(UPSTREAM_OF_CHAT))
    assert not exact.truncated and len(exact.nodes) == len(UPSTREAM_OF_CHAT)


def test_limits_are_enforced(neo4j_driver: Driver) -> None:
    reader = neo4j_readers(neo4j_driver, settings=QuerySettings(lineage_max_depth=4)).graph
    for kwargs in ({"depth": 0}, {"depth": 5}, {"limit": 0}, {"limit": 10_001}):
        with pytest.raises(InvalidArgumentError):
            reader.lineage("dataset:x/y@v1", EVERYTHING, **kwargs)


def test_a_cycle_terminates(neo4j_driver: Driver, project: str) -> None:
    a, b = f"dataset:{project}/a@v1", f"dataset:{project}/b@v1"
    _load(neo4j_driver, [_version(project, "a", derived=b), _version(project, "b", derived=a)])
    lineage = neo4j_readers(neo4j_driver).graph.lineage(a, EVERYTHING, depth=20)
    assert dict(lineage.depths) == {
        a: 0,
        b: 1,
        f"dataset:{project}/a": 1,
        f"dataset:{project}/b": 2,
    }
    derived = {(e.src, e.dst) for e in lineage.edges if e.type == "DERIVED_FROM"}
    assert derived == {(a, b), (b, a)}


def test_impact_lists_live_models_and_deployments(demo: Any, neo4j_driver: Driver) -> None:
    reader, ids = demo
    items = reader.impact(ids["web1"], EVERYTHING)
    paths = {item.node.id: [n.id for n in item.path.nodes] for item in items}
    chain = [ids[k] for k in ("web1", "web2", "pt", "base", "ft", "chat", "deploy")]
    assert paths == {ids["base"]: chain[:4], ids["chat"]: chain[:6], ids["deploy"]: chain}
    deploy = next(item for item in items if item.node.type == "Deployment")
    assert [e.type for e in deploy.path.edges] == [
        "DERIVED_FROM", "USED", "GENERATED_BY", "STARTED_FROM", "GENERATED_BY", "SERVES",
    ]  # fmt: skip
    assert (deploy.path.edges[0].src, deploy.path.edges[0].dst) == (ids["web2"], ids["web1"])

    project = ids["deploy"].split(":")[1].split("/")[0]
    retired = DeploymentRetiredPayload(name="chat-api", reason="replaced")
    _load(neo4j_driver, [_event(DeploymentRetired, retired, project)])
    assert {item.node.id for item in reader.impact(ids["web1"], EVERYTHING)} == {
        ids["base"],
        ids["chat"],
    }
    assert reader.impact("dataset:nowhere/x@v1", EVERYTHING) is None


def test_shortest_paths(demo: Any) -> None:
    reader, ids = demo
    paths = reader.paths(ids["base"], ids["web1"], EVERYTHING)
    assert [[n.id for n in p.nodes] for p in paths] == [
        [ids[k] for k in ("base", "pt", "web2", "web1")]
    ]
    assert [e.type for e in paths[0].edges] == ["GENERATED_BY", "USED", "DERIVED_FROM"]
    assert reader.paths(ids["base"], ids["web1"], EVERYTHING, max_depth=2) == []
    assert reader.paths(ids["base"], "model:nowhere/x@1", EVERYTHING) is None
    with pytest.raises(InvalidArgumentError):
        reader.paths(ids["base"], ids["web1"], EVERYTHING, max_depth=21)


def test_scope_isolates_projects(demo: Any, neo4j_driver: Driver, project: str) -> None:
    reader, ids = demo
    other = f"{project[:60]}-o"
    mixed = f"dataset:{other}/mixed@v1"
    try:
        _load(neo4j_driver, [_version(other, "mixed", derived=ids["web2"])])
        mine, theirs = Scope(frozenset({project})), Scope(frozenset({other}))
        assert reader.node(ids["web2"], theirs) is None
        assert reader.lineage(ids["web2"], theirs) is None
        assert reader.impact(ids["web2"], theirs) is None
        # The traversal stops at the project boundary, in both directions.
        down = reader.lineage(ids["web1"], mine, direction=Direction.DOWNSTREAM, depth=20)
        assert mixed not in down.depths
        everyone = reader.lineage(ids["web1"], EVERYTHING, direction=Direction.DOWNSTREAM)
        assert everyone.depths[mixed] == 2
        up = reader.lineage(mixed, theirs, depth=20)
        assert set(up.depths) == {mixed, f"dataset:{other}/mixed"}
        assert reader.paths(mixed, ids["web1"], theirs) is None
    finally:
        neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=other)
