"""The openlineage-python Kafka transport (confluent-kafka) writes raw OpenLineage events to
the log topic; the projector reads them through `decode_log_value`, which wraps them exactly
as the HTTP endpoint does."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from neo4j import Driver
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.transport.kafka import KafkaConfig, KafkaTransport

from provgraph.ingest.openlineage.wrap import _configured_names
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings

pytestmark = pytest.mark.integration


def test_kafka_transport_events_are_projected(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    # The projector recognises raw OpenLineage records by their shape and wraps them with the
    # configured namespace -> project map (read once per process: reset it for this test).
    mapping = {"pipelines": project, "s3://corpora": project}
    monkeypatch.setenv("PROVGRAPH_OPENLINEAGE_NAMESPACE_PROJECTS", json.dumps(mapping))
    _configured_names.cache_clear()
    request.addfinalizer(_configured_names.cache_clear)
    config = KafkaConfig(
        config={"bootstrap.servers": settings.kafka_bootstrap, "acks": "all"},
        topic=settings.events_topic,
        flush=True,
    )
    client = OpenLineageClient(transport=KafkaTransport(config))
    run_id, now = str(uuid.uuid4()), datetime.now(UTC).isoformat()
    job = Job(namespace="pipelines", name="export")
    out = OutputDataset("s3://corpora", "shards")
    for state in (RunState.COMPLETE, RunState.START):  # out of order on purpose
        outputs = [out] if state is RunState.START else []
        client.emit(
            RunEvent(
                eventType=state,
                eventTime=now,
                run=Run(run_id),
                job=job,
                producer="https://x/p",
                outputs=outputs,
            )
        )
    projector = build_projector(settings, neo4j_driver)
    try:
        stats = projector.run_until_idle(60)
    finally:
        projector.close()
    assert stats.dead_lettered == 0
    rows, _, _ = neo4j_driver.execute_query(
        "MATCH (v:DatasetVersion)-[:GENERATED_BY]->(r:Run {id: $r})-[:PART_OF]->(j:Job) "
        "RETURN v.id AS v, r.status AS s, j.id AS j",
        r=f"run:{run_id}",
    )
    assert [dict(r) for r in rows] == [
        {
            "v": f"dataset:{project}/shards@run-{run_id}",
            "s": "completed",
            "j": f"job:{project}/export",
        }
    ]
