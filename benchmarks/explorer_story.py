"""A wide lineage story for the explorer benchmark: answers of about 1,000 nodes.

The workload's projects are self-contained and their lineage answers stop near 200 nodes, so
the ~1,000-node case needs a wider project: one raw dataset version split into `fan` shards
(each a version derived from it), each shard read by one run, each run saving one checkpoint.
Downstream of the raw version, depth 2 reaches 1 + 2 x `fan` nodes and depth 3 adds the
checkpoints; every event is contract-valid and written as the projector writes it.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.schemas import REGISTRY, Event, parse_event

PROJECT = "bench-wide"
_NAMESPACE = uuid.UUID("5d7c1b1e-8a8e-4f6a-9a55-0f1f3c4e2b10")
_T0 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
_SHA = "sha256:" + "ab" * 32


def raw_version(project: str = PROJECT) -> str:
    """The start node of the wide answers: the raw version every shard is derived from."""
    return f"dataset:{project}/raw@v1"


def wide_events(fan: int = 500, project: str = PROJECT) -> list[Event]:
    """The story's events, in order: the raw version, `fan` shards, `fan` runs, checkpoints."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("dataset.registered", {"name": "raw"}),
        (
            "dataset.version.created",
            {"name": "raw", "version": "v1", "storage_uri": "s3://wide/raw/v1/"},
        ),
    ]
    for i in range(fan):
        steps.append(
            (
                "dataset.version.created",
                {
                    "name": f"shard-{i:04d}",
                    "version": "v1",
                    "storage_uri": f"s3://wide/shard-{i:04d}/v1/",
                    "derived_from": [
                        {"dataset_version": raw_version(project), "transform": "split"}
                    ],
                },
            )
        )
    for i in range(fan):
        run = f"{project}-run-{i:04d}"
        shard = f"dataset:{project}/shard-{i:04d}@v1"
        steps.append(
            (
                "run.started",
                {
                    "run_id": run,
                    "name": f"shard-{i:04d}",
                    "inputs": [{"dataset_version": shard, "role": "train"}],
                },
            )
        )
        steps.append(
            (
                "checkpoint.saved",
                {
                    "run_id": run,
                    "step": 100,
                    "uri": f"s3://wide/ckpt/{i:04d}/",
                    "checksum": _SHA,
                    "size_bytes": 1000,
                },
            )
        )
    return [_event(project, n, kind, payload) for n, (kind, payload) in enumerate(steps)]


def _event(project: str, n: int, event_type: str, payload: dict[str, Any]) -> Event:
    version = REGISTRY.current_version(event_type)
    payload_type = REGISTRY.resolve(event_type, version).model_fields["payload"].annotation
    assert payload_type is not None
    return parse_event(
        {
            "event_id": str(uuid.uuid5(_NAMESPACE, f"{project}-{n}")),
            "event_type": event_type,
            "schema_version": version,
            "occurred_at": (_T0 + timedelta(seconds=n)).isoformat(),
            "project": project,
            "producer": "https://provgraph.dev/benchmarks/explorer",
            "actor": "service:bench",
            "subject": payload_type.model_validate(payload).subject(project),
            "payload": payload,
        }
    )
