"""Test doubles shared by the client unit tests (imported by name: test dirs are not packages)."""

from __future__ import annotations

import threading
from collections import defaultdict

from provgraph.client import (
    MemoryEventLog,
    NotAuthorizedError,
    RejectedError,
    Transport,
    TransportError,
)
from provgraph.schemas import Event, RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

PROJECT = "client-tests"
PRODUCER = "https://provgraph.dev/sdk/python/test"


def metric_event(subject: int, step: int) -> RunMetricsLogged:
    """An event about run ``r<subject>`` whose step numbers the emit order per subject."""
    point = MetricPoint(name="loss", step=step, value=float(step))
    payload = RunMetricsLoggedPayload(run_id=f"r{subject}", points=(point,))
    return RunMetricsLogged.create(
        project=PROJECT, producer=PRODUCER, actor="user:test", payload=payload
    )


class FakeTransport(Transport):
    """Delivers into an in-memory event log, so it refuses what the contract refuses, like the
    real transports; `up = False` makes it fail like a broker that is down, events of a
    type in `reject_types` are refused as a receiver would refuse them, `unauthorized` makes
    every batch a 401 and a batch holding an event about a subject in `forbidden` is refused
    whole with a 403, as the ingest service does."""

    def __init__(self) -> None:
        self.log = MemoryEventLog()
        self.batches: list[list[Event]] = []
        self.up = True
        self.reject_types: set[str] = set()
        self.unauthorized = False
        self.forbidden: set[str] = set()
        self.calls = 0
        self.closed = False
        self._lock = threading.Lock()

    def send(self, batch: list[Event]) -> None:
        with self._lock:
            self.calls += 1
            if not self.up:
                raise TransportError("fake transport is down")
            self._authorize(batch)
            rejected = [e for e in batch if e.event_type in self.reject_types]
            try:
                self.log.append([e for e in batch if e not in rejected])
            except RejectedError as exc:
                rejected += exc.events
            self.batches.append([e for e in batch if e not in rejected])
        if rejected:
            raise RejectedError("fake refusal", rejected)

    def close(self) -> None:
        self.closed = True

    def _authorize(self, batch: list[Event]) -> None:
        if self.unauthorized:
            raise NotAuthorizedError("401 unknown token", batch, status=401)
        if any(event.subject in self.forbidden for event in batch):
            raise NotAuthorizedError("403 not a writer", batch, status=403)

    @property
    def events(self) -> list[Event]:
        with self._lock:
            return [e for batch in self.batches for e in batch]


def steps_by_subject(events: list[Event]) -> dict[str, list[int]]:
    """Per subject, the steps in the order they arrived."""
    out: dict[str, list[int]] = defaultdict(list)
    for event in events:
        assert isinstance(event, RunMetricsLogged)
        out[event.subject].append(event.payload.points[0].step)
    return dict(out)
