"""The whole stack as `make up` runs it: real ingest and projector processes, real servers.

The demo story goes in through POST /v1/events and comes out of Neo4j as lineage.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from e2e_helpers import admin_token, bearer
from neo4j import Driver

from provgraph.cli.demo import EXAMPLE_CYPHER
from provgraph.cli.demo_story import demo_events
from provgraph.infra.apps import Apps


def test_demo_story_through_http_ingest_becomes_lineage(
    apps: Apps, neo4j_driver: Driver, project: str
) -> None:
    events = demo_events(project)
    body = b"[" + b",".join(event.to_json_bytes() for event in events) + b"]"
    request = urllib.request.Request(
        f"{apps.settings.ingest_url}/v1/events",
        data=body,
        method="POST",
        headers=bearer(admin_token(apps)),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 202
        assert json.loads(response.read())["accepted"] == len(events)

    params = {"deployment": f"deployment:{project}/chat-api"}
    rows: list[str] = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and len(rows) < 5:
        records, _, _ = neo4j_driver.execute_query(EXAMPLE_CYPHER, params)
        rows = [record["dataset_version"] for record in records]
        time.sleep(0.5)
    assert rows == [
        f"dataset:{project}/heldout@v1",
        f"dataset:{project}/instruct@v1",
        f"dataset:{project}/instruct@v1-clean",
        f"dataset:{project}/web-corpus@v1",
        f"dataset:{project}/web-corpus@v2",
    ]


def test_sdk_run_over_http_ingest_becomes_lineage(
    apps: Apps, neo4j_driver: Driver, project: str, tmp_path: Path
) -> None:
    from provgraph.client import Emitter, HttpTransport

    dataset = f"dataset:{project}/corpus@v1"
    transport = HttpTransport(apps.settings.ingest_url, token=admin_token(apps))
    with Emitter(transport, project=project, spool_dir=tmp_path / "spool") as emitter:
        with emitter.run(experiment=None, params={"lr": 0.001}, inputs=[(dataset, "train")]) as run:
            run.log_metrics(1, loss=2.5)
            ckpt = run.checkpoint(10, "s3://bucket/ckpt/10/", checksum="sha256:" + "0" * 64)
            version = run.register_model("tiny", "0.1.0", checkpoint=ckpt)
            run.conclusion = "smoke run finished"
        assert emitter.flush(30)
    query = (
        "MATCH (mv:ModelVersion {id: $mv})-[:GENERATED_BY]->(r:Run)-[u:USED]->(dv:DatasetVersion) "
        "MATCH (mv)-[:EXPORTED_FROM]->(c:Checkpoint)-[:GENERATED_BY]->(r) "
        "RETURN r.id AS run, r.status AS status, u.role AS role, dv.id AS dataset, c.id AS ckpt"
    )
    rows: list[dict[str, object]] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (rows and rows[0]["status"] == "completed"):
        records, _, _ = neo4j_driver.execute_query(query, {"mv": version})
        rows = [record.data() for record in records]
        time.sleep(0.5)
    assert rows == [
        {
            "run": run.subject,
            "status": "completed",
            "role": "train",
            "dataset": dataset,
            "ckpt": ckpt,
        }
    ]
