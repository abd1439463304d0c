"""`run.started` v1 events already in the log stay readable: a real projector reads a raw v1
record (upcast to v2 when read) beside a v2 record naming it as its pilot, and Neo4j holds
both runs and the scale-up's SCALED_FROM link to its pilot."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

from kafka import KafkaProducer
from neo4j import Driver
from projector_processes import ProjectorProcess

from provgraph.core.eventlog import ensure_topics
from provgraph.ingest.settings import IngestSettings

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"


def _raw(name: str, project: str, run: str, **payload: str) -> dict[str, object]:
    """An example event as another producer wrote it, moved to `project` and run `run`."""
    text = (EXAMPLES / name).read_text().replace("llm-pretrain", project)
    event = json.loads(text)
    event["event_id"] = str(uuid.uuid4())
    event["subject"] = f"run:{run}"
    event["payload"]["run_id"] = run
    event["payload"].pop("scaled_from", None)
    event["payload"].update(payload)
    return event


def test_a_v1_pilot_and_its_v2_scale_up_are_both_projected(
    settings: IngestSettings,
    project: str,
    neo4j_driver: Driver,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    pilot, big = f"{project}-pilot", f"{project}-big"
    v1 = _raw("run.started.v1.json", project, pilot)
    v2 = _raw("run.started.json", project, big, scaled_from=f"run:{pilot}")
    assert (v1["schema_version"], v2["schema_version"]) == (1, 2)
    ensure_topics(settings)
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    try:
        for event in (v2, v1):  # the scale-up first: its pilot is a placeholder until then
            key = str(event["subject"]).encode()
            producer.send(settings.events_topic, key=key, value=json.dumps(event).encode())
        producer.flush()
    finally:
        producer.close()
    process = projector_process(settings)
    process.start("--until-idle", "--timeout", "60")
    assert process.wait_exit(timeout_s=90) == 0, process.output()
    found = neo4j_driver.execute_query(
        "MATCH (b:Run {id: $big})-[s:SCALED_FROM]->(p:Run) "
        "RETURN p.id AS pilot, p.placeholder AS placeholder, b.placeholder AS big",
        big=f"run:{big}",
    ).records
    assert [(r["pilot"], r["placeholder"], r["big"]) for r in found] == [
        (f"run:{pilot}", False, False)
    ], process.output()
