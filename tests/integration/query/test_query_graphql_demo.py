"""The GraphQL schema over the real GraphReader and Recipes, on the demo story in Neo4j."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_data

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter


@pytest.fixture()
def gql(neo4j_driver: Driver, project: str) -> Any:
    """Runs a query against the demo story projected under this test's project."""
    GraphWriter(neo4j_driver).write(
        [project_event(e) for e in demo_events(project, with_sweep=False)]
    )
    return graphql_data(neo4j_driver)


def test_model_version_walks_back_to_data(gql: Any, project: str) -> None:
    data = gql(
        f"""{{ modelVersion(name: "chat-1b", version: "1.0.0", project: "{project}") {{
              id status producedBy {{ name status params code {{ commit }}
                inputs {{ role datasetVersion {{ name version cleaningRules
                  derivedFrom {{ transform datasetVersion {{ version }} }} }} }}
                startedFrom {{ id ... on ModelVersion {{ producedBy {{ name resumedFrom {{ step }}
                  environment {{ image {{ name tag }} packages }} }} }} }} }}
              deployments {{ name serves {{ trafficShare }} }}
              evaluations {{ suite passed metrics }} }} }}"""
    )
    mv = data["modelVersion"]
    assert mv["id"] == f"model:{project}/chat-1b@1.0.0" and mv["status"] == "approved"
    run = mv["producedBy"]
    assert run["name"] == "chat-sft" and run["params"] == {
        "batch_size": 64,
        "epochs": 3,
        "lr": 1e-05,
    }
    assert run["code"] == {"commit": "9b1d0e2"}
    (used,) = run["inputs"]
    assert used["role"] == "train" and used["datasetVersion"]["version"] == "v1-clean"
    assert [r["name"] for r in used["datasetVersion"]["cleaningRules"]] == [
        "pii-scrub",
        "unicode-nfc",
    ]
    assert used["datasetVersion"]["derivedFrom"] == [
        {"transform": "clean", "datasetVersion": {"version": "v1"}}
    ]
    base_run = run["startedFrom"]["producedBy"]
    assert base_run["name"] == "pretrain-1b" and base_run["resumedFrom"] == [{"step": 1000}]
    assert base_run["environment"]["packages"] == {"numpy": "2.1.3", "torch": "2.5.1"}
    assert mv["deployments"] == [{"name": "chat-api", "serves": [{"trafficShare": 1.0}]}]
    assert mv["evaluations"] == [{"suite": "demo-eval", "passed": True, "metrics": {"acc": 0.61}}]


def test_a_dataset_versions_source_is_typed_field_by_field(gql: Any, project: str) -> None:
    """Each recorded element of the source has a field of its own, the compliance note too;
    a version recorded without a source answers null for each."""
    fields = "sourceUri sourceObtainedBy sourceLicence sourceComplianceNote"
    data = gql(
        f"""{{ raw: datasetVersion(name: "web-corpus", version: "v1", project: "{project}") {{
                 {fields} }}
               clean: datasetVersion(name: "instruct", version: "v1-clean",
                                     project: "{project}") {{ {fields} }} }}"""
    )
    assert data["raw"] == {
        "sourceUri": "https://example.org/crawl/2025-12/",
        "sourceObtainedBy": "crawl",
        "sourceLicence": "CC-BY-4.0",
        "sourceComplianceNote": "robots.txt honoured",
    }
    assert data["clean"] == dict.fromkeys(data["raw"])


def test_lineage_impact_and_history(gql: Any, project: str) -> None:
    ds = f"dataset:{project}/web-corpus@v2"
    data = gql(
        f"""{{ up: lineage(id: "model:{project}/base-1b@1.0.0", depth: 1) {{
                 nodes {{ id }} truncated }}
               impact(id: "{ds}") {{ node {{ id type }} path {{ nodes {{ id }} }} }}
               history(id: "{ds}") {{ items {{ eventType actor }} }} }}"""
    )
    up = {n["id"] for n in data["up"]["nodes"]}
    assert up == {
        f"run:{project}-demo-pretrain-001",
        f"checkpoint:{project}-demo-pretrain-001/2000",
        f"model:{project}/base-1b",
    }
    assert data["up"]["truncated"] is False
    impacted = {item["node"]["id"] for item in data["impact"]}
    assert impacted == {
        f"model:{project}/base-1b@1.0.0",
        f"model:{project}/chat-1b@1.0.0",
        f"deployment:{project}/chat-api",
    }
    for item in data["impact"]:
        assert item["path"]["nodes"][0]["id"] == ds
        assert item["path"]["nodes"][-1]["id"] == item["node"]["id"]
    assert data["history"]["items"] and all(
        i["actor"] == "user:demo" for i in data["history"]["items"]
    )


def test_reproduce_and_diff_are_json(gql: Any, project: str) -> None:
    chat, base = f"model:{project}/chat-1b@1.0.0", f"model:{project}/base-1b@1.0.0"
    data = gql(f'{{ reproduce(id: "{chat}") diff(a: "{base}", b: "{chat}") }}')
    assert isinstance(data["reproduce"], dict) and data["reproduce"]
    assert isinstance(data["diff"], dict) and data["diff"]
