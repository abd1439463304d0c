"""The dead-letter topic: poison records, each with where it came from and why it failed."""

from __future__ import annotations

from typing import Any

from kafka import KafkaProducer

from provgraph.ingest.settings import IngestSettings

MAX_MESSAGE_BYTES = 4096
"""Longest error message kept in a header; the full record value is kept as it was."""


def headers_for(record: Any, error: BaseException) -> list[tuple[str, bytes]]:
    """The headers of a dead letter: source topic, partition, offset, error class, message."""
    message = str(error).encode("utf-8", "replace")[:MAX_MESSAGE_BYTES]
    return [
        ("source.topic", str(record.topic).encode()),
        ("source.partition", str(record.partition).encode()),
        ("source.offset", str(record.offset).encode()),
        ("error.class", type(error).__name__.encode()),
        ("error.message", message),
    ]


class DeadLetters:
    """Writes poison records to the dead-letter topic and waits for the broker's ack."""

    def __init__(self, settings: IngestSettings) -> None:
        self.topic = settings.dead_letter_topic
        self.timeout_s = settings.dead_letter_timeout_s
        self._producer = KafkaProducer(
            bootstrap_servers=settings.kafka_bootstrap, acks="all", linger_ms=5
        )

    def send(self, poison: list[tuple[Any, BaseException]]) -> None:
        """Send every poison record and return only once all are acknowledged."""
        futures = [
            self._producer.send(
                self.topic, key=record.key, value=record.value, headers=headers_for(record, error)
            )
            for record, error in poison
        ]
        self._producer.flush(timeout=self.timeout_s)
        for future in futures:
            future.get(timeout=self.timeout_s)

    def close(self) -> None:
        """Flush and close the producer."""
        self._producer.close(timeout=self.timeout_s)
