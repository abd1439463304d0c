"""A token the projector has not applied yet is refused (401) by the real ingest service; the
emitter retries within its window and every event arrives once the token is applied."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from client_kafka_helpers import assert_exactly_as_emitted, read_topic
from support.http_service import served

from provgraph.authz.admin import access_event, token_issued
from provgraph.authz.tokens import new_token
from provgraph.client import Emitter, HttpTransport, NotAuthorizedError
from provgraph.client.spool import REJECTED_FILE
from provgraph.ingest.app import create_app
from provgraph.ingest.projection import project_event
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event, RunMetricsLogged
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload


def apply_token(access: Any, name: str, token: str, project: str) -> None:
    """What the projector does once it reaches the token's and the grant's events."""
    events: list[Event] = [
        token_issued(name, token, [], "user:test"),
        access_event(name, project, AccessRole("writer"), "user:test", grant=True),
    ]
    access.writer.write([project_event(event) for event in events])


def test_a_token_applied_late_delivers_everything_emitted_before(
    settings: IngestSettings, access: Any, project: str, tmp_path: Path
) -> None:
    name, token = f"user:late-{uuid.uuid4().hex[:8]}", new_token()
    spool = tmp_path / "spool"
    with served(create_app(settings)) as url:
        with pytest.raises(NotAuthorizedError) as refused:
            HttpTransport(url, token=token).send([metric(project, 0)])
        assert refused.value.status == 401

        emitter = Emitter(
            HttpTransport(url, token=token),
            spool_dir=spool,
            project=project,
            linger_s=0.05,
            retry_initial_s=0.2,
            retry_max_s=1.0,
            auth_retry_s=60.0,
        )
        events = [metric(project, step) for step in range(20)]
        for event in events:
            emitter.emit(event)
        time.sleep(2.0)  # several refusals meanwhile
        assert emitter.pending == len(events)
        apply_token(access, name, token, project)
        assert emitter.flush(timeout=30), f"{emitter.pending} events still pending"
        assert emitter.close()

    received = read_topic(settings.kafka_bootstrap, settings.events_topic, len(events))
    assert_exactly_as_emitted(events, received)
    assert not (spool / REJECTED_FILE).exists()


def metric(project: str, step: int) -> RunMetricsLogged:
    point = MetricPoint(name="loss", step=step, value=1.0 / (step + 1))
    payload = RunMetricsLoggedPayload(run_id=f"late-{project}", points=(point,))
    return RunMetricsLogged.create(
        project=project, producer="https://provgraph.dev/tests", actor="user:test", payload=payload
    )
