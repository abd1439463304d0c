"""The dead-letter topic: poison records, each with where it came from and why it failed.

Written through the one Kafka producer of the event log (`KafkaEventLog.append_records`): the
records are kept as they were, so they are raw records with headers, not events.
"""

from __future__ import annotations

from typing import Any

from kafka.errors import KafkaError

from provgraph.client.errors import TransportError
from provgraph.client.kafka_log import Record
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


def dead_letter(record: Any, error: BaseException) -> Record:
    """The dead letter of a consumed `record`: its key and value as they were, with headers."""
    return record.key, record.value, headers_for(record, error)


class DeadLetters:
    """Writes poison records to the dead-letter topic and waits for the broker's ack."""

    def __init__(self, settings: IngestSettings) -> None:
        self.topic = settings.dead_letter_topic
        self.timeout_s = settings.dead_letter_timeout_s
        self._log = settings.event_log(
            client_id="provgraph-dead-letters", topic=self.topic, timeout_s=self.timeout_s
        )

    def send(self, poison: list[tuple[Any, BaseException]]) -> None:
        """Send every poison record and return only once all are acknowledged.

        Raises `KafkaError` when Kafka did not acknowledge them all (the projector then reads
        the same records again after a pause).
        """
        try:
            self._log.append_records([dead_letter(record, error) for record, error in poison])
        except TransportError as exc:
            raise KafkaError(f"dead letters not written: {exc}") from exc

    def close(self) -> None:
        """Flush and close the producer."""
        self._log.close()
