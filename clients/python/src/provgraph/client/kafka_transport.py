"""Kafka transport: produce each event with its subject as key (acks=all, idempotent)."""

from __future__ import annotations

import logging
from typing import Any

from provgraph.client.config import DEFAULT_TOPIC, env
from provgraph.client.errors import ConfigError, RejectedError, TransportError
from provgraph.client.transport import Transport
from provgraph.schemas import Event

log = logging.getLogger(__name__)

# Errors a resend cannot fix: the event itself or the topic is wrong.
_PERMANENT_ERRORS = (
    "MessageSizeTooLargeError",
    "RecordTooLargeError",
    "InvalidTopicError",
    "TopicAuthorizationFailedError",
    "InvalidRecordError",
)


class KafkaTransport(Transport):
    """Produces to `topic` with key = subject, so one entity's events stay in order.

    The producer is idempotent with ``acks=all``; `send` waits for every acknowledgement (at
    most `timeout_s`). On any failure the producer is dropped and built afresh on the next
    send, so no half-broken producer state (or a record it still retries) outlives an error.
    """

    def __init__(
        self,
        bootstrap_servers: str | None = None,
        *,
        topic: str | None = None,
        timeout_s: float = 10.0,
        compression_type: str | None = "gzip",
        **producer_config: Any,
    ) -> None:
        bootstrap_servers = bootstrap_servers or env("KAFKA_BOOTSTRAP")
        if not bootstrap_servers:
            raise ConfigError(
                "no Kafka bootstrap: pass bootstrap_servers or set PROVGRAPH_KAFKA_BOOTSTRAP"
            )
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic or env("EVENTS_TOPIC") or DEFAULT_TOPIC
        self.timeout_s = timeout_s
        self._config: dict[str, Any] = {
            "bootstrap_servers": bootstrap_servers,
            "acks": "all",
            "enable_idempotence": True,
            "linger_ms": 5,
            "compression_type": compression_type,
            "max_block_ms": int(timeout_s * 1000),
            "request_timeout_ms": int(timeout_s * 1000),
            "delivery_timeout_ms": int(timeout_s * 1000) + 5 + 1000,
            "bootstrap_timeout_ms": int(timeout_s * 1000),
            "allow_auto_create_topics": False,
            "client_id": "provgraph-client",
            **producer_config,
        }
        self._producer: Any = None

    def describe(self) -> str:
        return f"Kafka {self.bootstrap_servers} topic {self.topic}"

    def send(self, batch: list[Event]) -> None:
        if not batch:
            return
        try:
            producer = self._ensure_producer()
            futures = [self._produce(producer, event) for event in batch]
            producer.flush(timeout=self.timeout_s)
        except Exception as exc:  # kafka-python raises many unrelated types when down
            self._drop_producer()
            raise TransportError(f"{self.describe()}: {type(exc).__name__}: {exc}") from exc
        self._check(batch, futures)

    def close(self) -> None:
        self._drop_producer(timeout_s=self.timeout_s)

    def _ensure_producer(self) -> Any:
        if self._producer is None:
            from kafka import KafkaProducer  # imported here: building one connects

            self._producer = KafkaProducer(**self._config)
        return self._producer

    def _produce(self, producer: Any, event: Event) -> Any:
        return producer.send(self.topic, key=event.kafka_key(), value=event.to_json_bytes())

    def _check(self, batch: list[Event], futures: list[Any]) -> None:
        rejected: list[Event] = []
        transient: list[BaseException] = []
        for event, future in zip(batch, futures, strict=True):
            error = future.exception if future.is_done else TimeoutError("not acknowledged")
            if error is None:
                continue
            if type(error).__name__ in _PERMANENT_ERRORS:
                rejected.append(event)
            else:
                transient.append(error)
        if transient:
            self._drop_producer()
            raise TransportError(
                f"{self.describe()}: {len(transient)} not delivered: {transient[0]}"
            )
        if rejected:
            raise RejectedError(f"{self.describe()} refused {len(rejected)} events", rejected)

    def _drop_producer(self, timeout_s: float | None = None) -> None:
        """Close the producer; without `timeout_s`, abort its pending records at once."""
        producer, self._producer = self._producer, None
        if producer is None:
            return
        try:
            if timeout_s is None:
                _abort_pending(producer)
            producer.close(timeout=timeout_s if timeout_s is not None else 1.0)
        except Exception as exc:  # closing a broken producer may fail; it is gone anyway
            log.debug("closing the Kafka producer failed: %s", exc)


def _abort_pending(producer: Any) -> None:
    # kafka-python has no public "close now": its close() first flushes, which never ends
    # while the broker is down, and its sender would go on retrying records we resend from
    # the spool. Force-closing the sender fails those records at once.
    sender = getattr(producer, "_sender", None)
    if sender is not None:
        sender.force_close()
        sender.join(timeout=5.0)
