"""The GraphQL API over a graph built through the real ingest path (HTTP -> Kafka -> projector
-> Neo4j), checked for exact answers on the demo story."""

from __future__ import annotations

from string import Template
from typing import Any


def q(template: str, p: str) -> str:
    return Template(template).substitute(p=p)


def _data(stack: Any, query: str) -> dict[str, Any]:
    answer = stack.graphql(query)
    assert "errors" not in answer, answer
    data: dict[str, Any] = answer["data"]
    return data


def _ids(stack: Any, query: str, field: str) -> set[str]:
    return {node["id"] for node in _data(stack, query)[field]["nodes"]}


def test_lineage_upstream_at_depths_one_two_and_max(demo_stack: Any) -> None:
    p = demo_stack.project
    model = f"model:{p}/chat-1b@1.0.0"
    query = '{ lineage(id: "MODEL", direction: UPSTREAM, depth: DEPTH) { nodes { id } } }'
    depth1 = {
        f"run:{p}-demo-finetune-001",
        f"checkpoint:{p}-demo-finetune-001/300",
        f"model:{p}/chat-1b",
    }
    assert (
        _ids(demo_stack, query.replace("MODEL", model).replace("DEPTH", "1"), "lineage") == depth1
    )
    depth2 = depth1 | {
        f"dataset:{p}/instruct@v1-clean",
        f"environment:{p}/trainer-2026-01",
        f"experiment:{p}/exp-001",
        f"model:{p}/base-1b@1.0.0",
    }
    assert (
        _ids(demo_stack, query.replace("MODEL", model).replace("DEPTH", "2"), "lineage") == depth2
    )
    deepest = _ids(demo_stack, query.replace("MODEL", model).replace("DEPTH", "20"), "lineage")
    assert {
        f"dataset:{p}/web-corpus@v1",
        f"dataset:{p}/heldout@v1",
        f"dataset:{p}/instruct@v1",
        f"checkpoint:{p}-demo-pretrain-001/1000",
    } <= deepest
    assert not any(node.startswith(("deployment:", "evaluation:")) for node in deepest)


def test_lineage_downstream_and_the_depth_limit(demo_stack: Any) -> None:
    p = demo_stack.project
    query = q(
        '{ lineage(id: "dataset:${p}/web-corpus@v1", direction: DOWNSTREAM, depth: 1) '
        "{ nodes { id } } }",
        p,
    )
    assert _ids(demo_stack, query, "lineage") == {f"dataset:{p}/web-corpus@v2"}
    refused = demo_stack.graphql(
        q('{ lineage(id: "dataset:${p}/web-corpus@v1", depth: 21) { truncated } }', p)
    )
    assert refused["errors"][0]["extensions"]["code"] == "invalid_argument"


def test_impact_of_a_bad_dataset_version(demo_stack: Any) -> None:
    p = demo_stack.project
    data = _data(
        demo_stack,
        q('{ impact(id: "dataset:${p}/web-corpus@v1") { node { id } path { nodes { id } } } }', p),
    )
    items = {
        item["node"]["id"]: [n["id"] for n in item["path"]["nodes"]] for item in data["impact"]
    }
    assert set(items) == {
        f"model:{p}/base-1b@1.0.0",
        f"model:{p}/chat-1b@1.0.0",
        f"model:{p}/chat-1b@1.1.0",  # the sweep's best, fine-tuned from base-1b
        f"deployment:{p}/chat-api",
    }
    assert items[f"deployment:{p}/chat-api"][0] == f"dataset:{p}/web-corpus@v1"
    assert items[f"deployment:{p}/chat-api"][-1] == f"deployment:{p}/chat-api"


def test_path_between_a_deployment_and_its_raw_data(demo_stack: Any) -> None:
    p = demo_stack.project
    data = _data(
        demo_stack,
        q(
            '{ path(from: "deployment:${p}/chat-api", to: "dataset:${p}/web-corpus@v1") '
            "{ nodes { id } edges { type } } }",
            p,
        ),
    )
    # Every shortest connection is returned: the provenance chain through the base model, and
    # equally short ones through the environment and experiment the two runs share.
    chains = [[e["type"] for e in path["edges"]] for path in data["path"]]
    chain = ["SERVES", "GENERATED_BY", "STARTED_FROM", "GENERATED_BY", "USED", "DERIVED_FROM"]
    assert chain in chains
    assert {len(found) for found in chains} == {6}


def test_diff_of_the_two_runs(demo_stack: Any) -> None:
    p = demo_stack.project
    data = _data(
        demo_stack,
        q('{ diff(a: "run:${p}-demo-pretrain-001", b: "run:${p}-demo-finetune-001") }', p),
    )
    diff = data["diff"]
    assert diff["params"]["changed"] == {
        "lr": {"a": 0.0003, "b": 1e-05},
        "batch_size": {"a": 512, "b": 64},
        "epochs": {"a": 1, "b": 3},
    }
    assert diff["inputs"]["train"] == {
        "added": [f"dataset:{p}/instruct@v1-clean"],
        "removed": [f"dataset:{p}/web-corpus@v2"],
    }
    assert diff["code"]["changed"] is True


def test_reproduce_the_deployed_model(demo_stack: Any) -> None:
    p = demo_stack.project
    query = '{ reproduce(id: "model:P/chat-1b@1.0.0") }'.replace("P", p)
    recipe = _data(demo_stack, query)["reproduce"]
    assert recipe["datasets"] == sorted(
        f"dataset:{p}/{name}"
        for name in (
            "heldout@v1",
            "instruct@v1",
            "instruct@v1-clean",
            "web-corpus@v1",
            "web-corpus@v2",
        )
    )
    # The fine-tune trains on instruct v1-clean, which recorded no quality gates.
    assert recipe["gaps"] == [
        {
            "at": f"dataset:{p}/instruct@v1-clean",
            "issue": f"no quality gates recorded (trained on by run:{p}-demo-finetune-001)",
        }
    ]


def test_as_of_before_and_after_a_version_existed(demo_stack: Any) -> None:
    p = demo_stack.project
    query = '{ node(id: "ID", asOf: "WHEN") { id } }'.replace(
        "ID", f"dataset:{p}/instruct@v1-clean"
    )
    before = demo_stack.graphql(query.replace("WHEN", "2026-01-05T10:35:00Z"))
    assert before["data"]["node"] is None
    assert before["errors"][0]["extensions"]["code"] == "not_found"
    after = _data(demo_stack, query.replace("WHEN", "2026-01-05T10:45:00Z"))
    assert after["node"] == {"id": f"dataset:{p}/instruct@v1-clean"}


def test_history_newest_first(demo_stack: Any) -> None:
    p = demo_stack.project
    data = _data(
        demo_stack,
        q(
            '{ history(id: "run:${p}-demo-pretrain-001", first: 50) '
            "{ items { eventType occurredAt producer } nextCursor } }",
            p,
        ),
    )
    items = data["history"]["items"]
    times = [item["occurredAt"] for item in items]
    assert times == sorted(times, reverse=True)
    assert {"run.started", "run.resumed", "run.completed"} <= {i["eventType"] for i in items}
    assert {item["producer"] for item in items} == {"https://provgraph.dev/demo/0.1.0"}
