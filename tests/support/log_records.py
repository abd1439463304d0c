"""A log record as the projector reads it (`provgraph.ingest.ports.LogRecord`), for the pure
tests of the log's order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rec:
    partition: int
    offset: int
    timestamp: int
    topic: str = "events"
    key: bytes | None = None
    value: bytes | None = None
    headers: tuple[tuple[str, bytes], ...] = ()
