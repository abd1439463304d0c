"""The dead-letter topic: poison records, each with where it came from and why it failed.

Written through the one Kafka producer of the event log (`KafkaEventLog.append_records`): the
records are kept as they were (key, value and their own headers), so they are raw records,
not events. The headers added say where the record was and why it was refused:

- `source.topic`, `source.partition`, `source.offset`: its position in the event log;
- `provgraph-reason`: a snake_case code (`rejections.Reason`), `provgraph-error`: one line;
- `error.class`, `error.message`: the error's class and text (first 4 KiB), as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kafka.errors import KafkaError

from provgraph.client.errors import TransportError
from provgraph.client.kafka_log import Record
from provgraph.ingest.projector.rejections import Reason, one_line, reason_of
from provgraph.ingest.settings import IngestSettings

MAX_MESSAGE_BYTES = 4096
"""Longest error text kept in a header; the full record value is kept as it was."""

SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET = "source.topic", "source.partition", "source.offset"
ERROR_CLASS, ERROR_MESSAGE = "error.class", "error.message"
REASON_HEADER, ERROR_HEADER = "provgraph-reason", "provgraph-error"
ADDED_HEADERS = frozenset(
    {SOURCE_TOPIC, SOURCE_PARTITION, SOURCE_OFFSET, ERROR_CLASS, ERROR_MESSAGE}
    | {REASON_HEADER, ERROR_HEADER}
)
"""The headers a dead letter gains; the record's own headers are kept beside them."""

# Dead letters written before `provgraph-reason` existed: their reason, from the error class.
_LEGACY_REASONS = {
    "UnknownEventTypeError": Reason.UNKNOWN_TYPE,
    "FutureSchemaVersionError": Reason.UNSUPPORTED_VERSION,
    "ProjectionError": Reason.PROJECTION,
}


def _text(value: str) -> bytes:
    # Cut at a character boundary: a header is read back as UTF-8 text.
    cut = value.encode("utf-8", "replace")[:MAX_MESSAGE_BYTES]
    return cut.decode("utf-8", "ignore").encode()


def headers_for(record: Any, error: BaseException) -> list[tuple[str, bytes]]:
    """The headers of a dead letter: the record's own (the principal ingest stamped, ...),
    then its source position, the reason code, the error on one line and the error class and
    message."""
    own = [(k, v) for k, v in getattr(record, "headers", None) or () if k not in ADDED_HEADERS]
    return [
        *own,
        (SOURCE_TOPIC, str(record.topic).encode()),
        (SOURCE_PARTITION, str(record.partition).encode()),
        (SOURCE_OFFSET, str(record.offset).encode()),
        (REASON_HEADER, reason_of(error).encode()),
        (ERROR_HEADER, _text(one_line(error, limit=None))),
        (ERROR_CLASS, type(error).__name__.encode()),
        (ERROR_MESSAGE, _text(str(error))),
    ]


def dead_letter(record: Any, error: BaseException) -> Record:
    """The dead letter of a consumed `record`: its key and value as they were, with headers."""
    return record.key, record.value, headers_for(record, error)


def reason_in(headers: Mapping[str, bytes]) -> str:
    """The reason code a dead letter's headers give (older letters: from the error class)."""
    reason = headers.get(REASON_HEADER)
    if reason:
        return reason.decode("utf-8", "replace")
    error_class = headers.get(ERROR_CLASS, b"").decode("utf-8", "replace")
    return _LEGACY_REASONS.get(error_class, Reason.CONTRACT)


def own_headers(headers: Iterable[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The record's own headers, as it had them before it was dead-lettered."""
    return [(k, v) for k, v in headers if k not in ADDED_HEADERS]


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
