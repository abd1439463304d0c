"""`provgraph trace` and `provgraph whois` in a subprocess, against the demo story."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.stories import provgraph_cli as _cli

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.schemas.events.data import DatasetVersionCreated, DatasetVersionCreatedPayload


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> str:
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    return project


def test_trace_prints_the_tree_both_ways(neo4j_endpoint: Any, demo: str) -> None:
    up = _cli(neo4j_endpoint, "trace", f"dataset:{demo}/instruct@v1-clean", "--up", "--depth", "1")
    assert up.returncode == 0, up.stderr
    assert up.stdout.splitlines() == [
        f"DatasetVersion dataset:{demo}/instruct@v1-clean (instruct v1-clean)",
        f"├── DERIVED_FROM[transform=clean] → DatasetVersion dataset:{demo}/instruct@v1"
        " (instruct v1)",
        f"│   └── VERSION_OF → Dataset dataset:{demo}/instruct (instruct) (repeated)",
        f"└── VERSION_OF → Dataset dataset:{demo}/instruct (instruct)",
    ]
    down = _cli(neo4j_endpoint, "trace", f"dataset:{demo}/instruct@v1-clean", "--down")
    assert down.returncode == 0, down.stderr
    assert f"← SERVES[traffic_share=1.0] Deployment deployment:{demo}/chat-api" in down.stdout
    assert _cli(neo4j_endpoint, "trace", f"run:{demo}-none").returncode == 1


def test_whois_finds_a_file_by_its_checksum(
    neo4j_driver: Driver, neo4j_endpoint: Any, demo: str, tmp_path: Path
) -> None:
    path = tmp_path / "shard-000.jsonl"
    # The content is the test's own: whois searches every project, and earlier runs stay.
    path.write_bytes(f'{{"text": "hello from {demo}"}}\n'.encode() * 1000)
    checksum = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    payload = {
        "name": "instruct",
        "version": "v2",
        "storage_uri": "s3://demo/instruct/v2/",
        "checksum": checksum,
        "derived_from": [
            {"dataset_version": f"dataset:{demo}/instruct@v1-clean", "transform": "filter"}
        ],
    }
    event = DatasetVersionCreated.create(
        project=demo,
        producer="https://provgraph.dev/tests",
        actor="user:test",
        payload=DatasetVersionCreatedPayload.model_validate(payload),
    )
    GraphWriter(neo4j_driver).write([project_event(event)])

    found = _cli(neo4j_endpoint, "whois", str(path), "--json")

    assert found.returncode == 0, found.stderr
    report = json.loads(found.stdout)
    assert report["checksum"] == checksum
    [match] = report["matches"]
    assert (match["id"], match["type"]) == (f"dataset:{demo}/instruct@v2", "DatasetVersion")
    upstream = {(n["id"], n["depth"]) for n in match["upstream"]}
    assert (f"dataset:{demo}/instruct@v1-clean", 1) in upstream
    assert (f"dataset:{demo}/instruct@v1", 2) in upstream

    text = _cli(neo4j_endpoint, "whois", str(path))
    assert text.returncode == 0
    assert f"is DatasetVersion dataset:{demo}/instruct@v2 (instruct v2)" in text.stdout

    path.write_bytes(b"not in the graph")
    unknown = _cli(neo4j_endpoint, "whois", str(path), "--json")
    assert unknown.returncode == 1
    assert json.loads(unknown.stdout)["found"] is False
