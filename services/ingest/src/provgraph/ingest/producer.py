"""The event log port and its Kafka adapter: append validated events, answer only once durable.

`EventLog.append` returns after every event of the batch is acknowledged (`acks=all`, idempotent
producer), or raises an `EventLogError`; it never drops an event silently. A failed append may
have written part of the batch: the caller answers 503 and the client retries with the same
event_ids, which the projector applies at most once.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafka import KafkaAdminClient, KafkaProducer
from kafka.codec import has_lz4, has_zstd
from kafka.errors import KafkaError

from provgraph.ingest.errors import EventLogError, EventLogUnavailableError, NotReadyError
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event

# Larger producer batches than the 16 KiB default: one HTTP batch becomes few produce requests.
_BATCH_BYTES = 256 * 1024
_MAX_REQUEST_BYTES = 4 * 1024 * 1024
_PROBE_TIMEOUT_MS = 1500


@dataclass(frozen=True, slots=True)
class Appended:
    """Where one event landed in the log."""

    event_id: str
    partition: int
    offset: int


class EventLog(ABC):
    """Port: the append-only event log the ingest service writes to."""

    @abstractmethod
    def append(self, events: Sequence[Event]) -> list[Appended]:
        """Append `events` in order; return once all are durable, else raise `EventLogError`."""

    @abstractmethod
    def check_reachable(self) -> None:
        """Return if the log answers now; raise `NotReadyError` otherwise."""

    def close(self) -> None:  # noqa: B027  (adapters without resources need no close)
        """Release connections; pending appends are given a bounded time to finish."""


def choose_compression(requested: str) -> str | None:
    """The producer codec for `requested` ("auto", "none", "gzip", "lz4", "zstd", "snappy").

    "auto" picks the best codec kafka-python can use in this environment: zstd when the
    `zstandard` package is installed, lz4 with `lz4`, otherwise gzip (standard library).
    """
    if requested == "none":
        return None
    if requested != "auto":
        return requested
    if has_zstd():
        return "zstd"
    if has_lz4():
        return "lz4"
    return "gzip"


def producer_config(settings: IngestSettings) -> dict[str, Any]:
    """KafkaProducer settings: durable, ordered per key, bounded by `produce_timeout_s`."""
    timeout_ms = int(settings.produce_timeout_s * 1000)
    return {
        "bootstrap_servers": settings.kafka_bootstrap.split(","),
        "client_id": "provgraph-ingest",
        "acks": "all",
        "enable_idempotence": True,
        "compression_type": choose_compression(settings.produce_compression),
        "linger_ms": settings.produce_linger_ms,
        "batch_size": _BATCH_BYTES,
        "max_request_size": _MAX_REQUEST_BYTES,
        # Every wait of the producer fits in the HTTP answer's budget, so a stuck broker
        # turns into a 503 rather than a hung request.
        "max_block_ms": timeout_ms,
        "request_timeout_ms": timeout_ms,
        "delivery_timeout_ms": timeout_ms + settings.produce_linger_ms,
        "bootstrap_timeout_ms": timeout_ms,
    }


class KafkaEventLog(EventLog):
    """The event log on a Kafka topic: key = subject, value = the event's canonical JSON."""

    def __init__(self, settings: IngestSettings, producer: Any) -> None:
        self._settings = settings
        self._producer = producer

    @classmethod
    def connect(cls, settings: IngestSettings) -> KafkaEventLog:
        """Start an idempotent producer; raise `EventLogUnavailableError` if Kafka is down."""
        try:
            producer = KafkaProducer(**producer_config(settings))
        except KafkaError as exc:
            raise _translate(exc, settings, "cannot connect to Kafka") from exc
        return cls(settings, producer)

    def append(self, events: Sequence[Event]) -> list[Appended]:
        deadline = time.monotonic() + self._settings.produce_timeout_s
        try:
            futures = [self._send(event) for event in events]
            return [
                _await(event, future, deadline)
                for event, future in zip(events, futures, strict=True)
            ]
        except KafkaError as exc:
            raise _translate(exc, self._settings, "Kafka did not acknowledge the batch") from exc

    def check_reachable(self) -> None:
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=self._settings.kafka_bootstrap.split(","),
                client_id="provgraph-ingest-probe",
                bootstrap_timeout_ms=_PROBE_TIMEOUT_MS,
                request_timeout_ms=_PROBE_TIMEOUT_MS,
            )
        except KafkaError as exc:
            raise self._not_ready(f"Kafka unreachable: {exc}") from exc
        try:
            topics = set(admin.list_topics())
        except KafkaError as exc:
            raise self._not_ready(f"Kafka did not answer a metadata request: {exc}") from exc
        finally:
            admin.close()
        if self._settings.events_topic not in topics:
            raise self._not_ready(f"topic {self._settings.events_topic!r} does not exist")

    def close(self) -> None:
        self._producer.close(timeout=self._settings.produce_timeout_s)

    def _send(self, event: Event) -> Any:
        return self._producer.send(
            self._settings.events_topic, key=event.kafka_key(), value=event.to_json_bytes()
        )

    def _not_ready(self, message: str) -> NotReadyError:
        details = {"bootstrap": self._settings.kafka_bootstrap}
        return NotReadyError(message, details, retry_after_s=self._settings.retry_after_s)


def _await(event: Event, future: Any, deadline: float) -> Appended:
    remaining = max(deadline - time.monotonic(), 0.001)
    meta = future.get(timeout=remaining)
    return Appended(str(event.event_id), int(meta.partition), int(meta.offset))


def _translate(exc: KafkaError, settings: IngestSettings, what: str) -> EventLogError:
    details = {"topic": settings.events_topic, "kafka_error": type(exc).__name__}
    if exc.retriable:
        return EventLogUnavailableError(
            f"{what}: {exc}; nothing is confirmed, retry the same events later",
            details,
            retry_after_s=settings.retry_after_s,
        )
    return EventLogError(f"{what}: {exc}", details)


class ReadinessCache:
    """Runs a readiness check at most once per `ttl_s`; concurrent callers share one run."""

    def __init__(
        self,
        check: Callable[[], None],
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._check = check
        self._ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._checked_at: float | None = None
        self._error: EventLogError | None = None

    def check(self) -> None:
        """Return if the last answer (at most `ttl_s` old) was good; raise its error otherwise."""
        with self._lock:
            now = self._clock()
            if self._checked_at is None or now - self._checked_at >= self._ttl_s:
                self._error = self._run()
                self._checked_at = self._clock()
            error = self._error
        if error is not None:
            raise error

    def _run(self) -> EventLogError | None:
        try:
            self._check()
        except EventLogError as exc:
            return exc
        return None
