"""The event log on a Kafka topic: provgraph's one Kafka producer.

Idempotent, ``acks=all``, compressed, lingering a few milliseconds to fill batches; every wait
bounded by one timeout. The SDK's Kafka transport, the ingest service, the projector's dead
letters and the token and grant commands all produce through `KafkaEventLog`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from kafka import KafkaAdminClient, KafkaProducer
from kafka.codec import has_lz4, has_zstd

from provgraph.client.errors import RejectedError, TransportError
from provgraph.client.eventlog import Appended, EventLog, Headers, checked, refusal
from provgraph.schemas import Event

log = logging.getLogger(__name__)

# Larger producer batches than the 16 KiB default: one batch of events becomes few requests.
_BATCH_BYTES = 256 * 1024
_MAX_REQUEST_BYTES = 4 * 1024 * 1024
_PROBE_TIMEOUT_MS = 1500

PERMANENT_ERRORS = frozenset(
    {
        "MessageSizeTooLargeError",
        "RecordListTooLargeError",
        "RecordTooLargeError",
        "InvalidTopicError",
        "TopicAuthorizationFailedError",
        "InvalidRecordError",
    }
)
"""Errors a resend cannot fix (the record or the topic is wrong); any other is transient."""

Record = tuple[bytes | None, bytes, list[tuple[str, bytes]] | None]
"""A raw record: key, value, headers."""


def choose_compression(requested: str | None) -> str | None:
    """The producer codec for `requested` ("auto", "none" or None, "gzip", "lz4", "zstd", ...).

    "auto" picks the best codec kafka-python can use in this environment: zstd when the
    `zstandard` package is installed, lz4 with `lz4`, otherwise gzip (standard library).
    """
    if requested in (None, "none"):
        return None
    if requested != "auto":
        return requested
    if has_zstd():
        return "zstd"
    if has_lz4():
        return "lz4"
    return "gzip"


def producer_config(
    bootstrap: str,
    *,
    timeout_s: float,
    compression: str | None = "auto",
    linger_ms: int = 5,
    client_id: str = "provgraph",
) -> dict[str, Any]:
    """KafkaProducer settings: durable, ordered per key, every wait bounded by `timeout_s`."""
    timeout_ms = int(timeout_s * 1000)
    return {
        "bootstrap_servers": bootstrap.split(","),
        "client_id": client_id,
        "acks": "all",
        "enable_idempotence": True,
        "compression_type": choose_compression(compression),
        "linger_ms": linger_ms,
        "batch_size": _BATCH_BYTES,
        "max_request_size": _MAX_REQUEST_BYTES,
        # The log's topics are created on purpose, with their retention: never by a send.
        "allow_auto_create_topics": False,
        # Every wait of the producer fits in the caller's budget, so a stuck broker turns
        # into a TransportError rather than a hung caller.
        "max_block_ms": timeout_ms,
        # Back within a second of a restarted broker (kafka-python's own cap is 30 s).
        "reconnect_backoff_max_ms": 1000,
        "request_timeout_ms": timeout_ms,
        "delivery_timeout_ms": timeout_ms + linger_ms,
        "bootstrap_timeout_ms": timeout_ms,
    }


class KafkaEventLog(EventLog):
    """The event log on a Kafka topic: key = subject, value = the event's canonical JSON.

    A producer that failed a send is never used again: it is closed and the next append opens
    a fresh one with `open_producer`. A producer's state can outlive what the broker remembers
    (after a broker is killed it may keep timing out although the broker is back), so no
    half-broken producer outlives an error. Safe to share between threads.
    """

    def __init__(
        self,
        open_producer: Callable[[], Any],
        *,
        bootstrap: str,
        topic: str,
        timeout_s: float,
    ) -> None:
        self._open_producer = open_producer
        self._producer: Any = None
        self._lock = threading.Lock()
        self.bootstrap = bootstrap
        self.topic = topic
        self.timeout_s = timeout_s

    @classmethod
    def connect(
        cls,
        bootstrap: str,
        *,
        topic: str,
        timeout_s: float = 10.0,
        compression: str | None = "auto",
        linger_ms: int = 5,
        client_id: str = "provgraph",
        **options: Any,
    ) -> KafkaEventLog:
        """Start the producer (`options` are KafkaProducer's own, they win); `TransportError`
        when Kafka cannot be reached within `timeout_s`."""
        config = producer_config(
            bootstrap,
            timeout_s=timeout_s,
            compression=compression,
            linger_ms=linger_ms,
            client_id=client_id,
        )
        event_log = cls(
            lambda: KafkaProducer(**{**config, **options}),
            bootstrap=bootstrap,
            topic=topic,
            timeout_s=timeout_s,
        )
        event_log._current()  # Kafka down: TransportError now, not at the first append
        return event_log

    def describe(self) -> str:
        """Where this log writes, for messages."""
        return f"Kafka {self.bootstrap} topic {self.topic}"

    def append(
        self, events: Sequence[Event], headers: Sequence[Headers] | None = None
    ) -> list[Appended]:
        good, refused = checked(events, headers)
        outcomes = self._produce(
            [(e.kafka_key(), value, extra or None) for e, value, extra in good]
        )
        appended: list[Appended] = []
        for (event, _, _), outcome in zip(good, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                refused.append(event)
            else:
                appended.append(Appended(str(event.event_id), outcome.partition, outcome.offset))
        if refused:
            raise refusal(self.describe(), refused)
        return appended

    def append_records(self, records: Sequence[Record]) -> None:
        """Append raw records as they are (for what is not an event: dead letters) and return
        once all are durable; the same errors as `append` (a refusal lists no events)."""
        refused = [o for o in self._produce(records) if isinstance(o, BaseException)]
        if refused:
            raise RejectedError(f"{self.describe()} refused {len(refused)} records", [])

    def check_reachable(self) -> None:
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=self.bootstrap.split(","),
                client_id="provgraph-probe",
                bootstrap_timeout_ms=_PROBE_TIMEOUT_MS,
                request_timeout_ms=_PROBE_TIMEOUT_MS,
            )
        except Exception as exc:
            raise TransportError(f"Kafka {self.bootstrap} unreachable: {_name(exc)}") from exc
        try:
            topics = set(admin.list_topics())
        except Exception as exc:
            raise TransportError(f"Kafka did not answer a metadata request: {_name(exc)}") from exc
        finally:
            admin.close()
        if self.topic not in topics:
            raise TransportError(f"topic {self.topic!r} does not exist")

    def close(self) -> None:
        with self._lock:
            producer, self._producer = self._producer, None
        if producer is not None:
            _close(producer, self.timeout_s)

    def _current(self) -> Any:
        """The producer in use, opened when there is none; `TransportError` if Kafka is down."""
        with self._lock:
            if self._producer is None:
                try:
                    self._producer = self._open_producer()
                except Exception as exc:  # kafka-python raises many unrelated types when down
                    raise TransportError(
                        f"cannot connect to Kafka {self.bootstrap}: {_name(exc)}"
                    ) from exc
            return self._producer

    def _discard(self, producer: Any) -> None:
        """Retire `producer` after a transient failure (once, whichever thread saw it first)."""
        with self._lock:
            if self._producer is not producer:
                return
            self._producer = None
        log.info("%s: a send failed, the next append uses a new producer", self.describe())
        _abandon(producer)

    def _produce(self, records: Sequence[Record]) -> list[Any]:
        """Send every record and wait (at most `timeout_s` in all) for each acknowledgement.

        Returns, per record, its metadata or the permanent error that refused it; any other
        failure raises `TransportError` (nothing is confirmed: the caller resends the batch).
        """
        producer = self._current()
        deadline = time.monotonic() + self.timeout_s  # opening a producer has its own bound
        try:  # all sent before any wait: batches
            sent = [self._send(producer, record) for record in records]
        except TransportError:
            self._discard(producer)
            raise
        outcomes = [_wait(future, deadline) for future in sent]
        transient = [o for o in outcomes if isinstance(o, BaseException) and not _permanent(o)]
        if transient:
            self._discard(producer)
            raise TransportError(
                f"{self.describe()}: {len(transient)} of {len(records)} records not "
                f"acknowledged ({_name(transient[0])})"
            ) from transient[0]
        return outcomes

    def _send(self, producer: Any, record: Record) -> Any:
        """The record's future, or the permanent error that refused it at once."""
        key, value, headers = record
        try:
            return producer.send(self.topic, key=key, value=value, headers=headers)
        except Exception as exc:  # kafka-python raises many unrelated types when down
            if _permanent(exc):
                return exc
            raise TransportError(f"{self.describe()}: {_name(exc)}") from exc


def _wait(sent: Any, deadline: float) -> Any:
    """The record's metadata, or the error of its send (a timeout once `deadline` passed)."""
    if isinstance(sent, BaseException):
        return sent
    try:
        return sent.get(timeout=max(deadline - time.monotonic(), 0.001))
    except Exception as exc:
        return exc


_ABANDON_WAIT_S = 1.0  # for the stopped network thread to finish its current poll


def _abandon(producer: Any) -> None:
    """Stop a failed `producer` at once, dropping the records it has not sent.

    The caller resends what was not acknowledged, so a retired producer must send nothing
    more: each record it delivered later would be in the log twice. kafka-python's `close()`
    flushes first and, while records are pending, raises before it stops the network thread,
    which then goes on sending them. So the network thread is stopped without sending first,
    as `close()` itself does once its grace period is over (`_sender.force_close()`,
    kafka-python 3's), then the producer is closed. A record already on the wire may still
    land: the log is at-least-once, and the projection drops a repeated event id.
    """
    sender = getattr(producer, "_sender", None)
    if sender is not None:
        sender.force_close()
        sender.join(_ABANDON_WAIT_S)
    _close(producer, 0)


def _close(producer: Any, timeout_s: float) -> None:
    try:
        producer.close(timeout=timeout_s)
    except Exception as exc:  # closing a broken producer may fail; it is gone anyway
        log.debug("closing the Kafka producer failed: %s", exc)


def _permanent(error: BaseException) -> bool:
    return type(error).__name__ in PERMANENT_ERRORS


def _name(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
