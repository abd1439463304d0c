"""The Kafka adapter's pure parts: configuration, sending, error translation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from kafka.codec import has_lz4, has_zstd
from kafka.errors import KafkaTimeoutError, MessageSizeTooLargeError

from provgraph.client.errors import RejectedError, TransportError
from provgraph.client.kafka_log import KafkaEventLog, choose_compression, producer_config
from provgraph.schemas import Event, RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload


def test_auto_compression_is_the_best_available_codec() -> None:
    expected = "zstd" if has_zstd() else "lz4" if has_lz4() else "gzip"
    assert choose_compression("auto") == expected
    assert choose_compression("none") is None
    assert choose_compression(None) is None
    assert choose_compression("gzip") == "gzip"


def test_producer_is_durable_and_bounded_by_the_timeout() -> None:
    config = producer_config("a:1,b:2", timeout_s=2.5)
    assert config["bootstrap_servers"] == ["a:1", "b:2"]
    assert config["acks"] == "all" and config["enable_idempotence"] is True
    assert config["max_block_ms"] == config["request_timeout_ms"] == 2500
    assert config["delivery_timeout_ms"] >= config["request_timeout_ms"] + config["linger_ms"]
    assert config["allow_auto_create_topics"] is False


@dataclass
class _Meta:
    partition: int
    offset: int


class _Future:
    def __init__(self, result: _Meta | Exception) -> None:
        self.result = result

    def get(self, timeout: float) -> _Meta:
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


class _Producer:
    """Stands in for KafkaProducer: records sends, answers with canned futures."""

    def __init__(self, outcomes: Sequence[_Meta | Exception]) -> None:
        self.outcomes = list(outcomes)
        self.sent: list[tuple[str, bytes | None, bytes, Any]] = []
        self.closed_with: float | None = None

    def close(self, timeout: float) -> None:
        self.closed_with = timeout

    def send(self, topic: str, key: bytes | None, value: bytes, headers: Any) -> _Future:
        self.sent.append((topic, key, value, headers))
        return _Future(self.outcomes.pop(0))


def _log(producer: _Producer, topic: str = "log") -> KafkaEventLog:
    return KafkaEventLog(lambda: producer, bootstrap="a:1", topic=topic, timeout_s=1.0)


def _event(run: str) -> Event:
    payload = RunStartedPayload(run_id=run)
    return RunStarted.create(
        project="p", producer="https://example.com/t", actor="ci:t", payload=payload
    )


def test_append_sends_key_subject_value_canonical_json() -> None:
    producer = _Producer([_Meta(1, 10), _Meta(2, 20)])
    events = [_event("r-1"), _event("r-2")]
    appended = _log(producer).append(events)
    assert [(a.partition, a.offset) for a in appended] == [(1, 10), (2, 20)]
    assert producer.sent == [("log", e.kafka_key(), e.to_json_bytes(), None) for e in events]
    assert producer.sent[0][1] == b"run:r-1"


def test_a_transient_failure_is_a_transport_error() -> None:
    log = _log(_Producer([_Meta(0, 0), KafkaTimeoutError("no ack")]))
    with pytest.raises(TransportError) as raised:
        log.append([_event("r-1"), _event("r-2")])
    assert type(raised.value) is TransportError
    assert isinstance(raised.value.__cause__, KafkaTimeoutError)


def test_a_permanent_failure_rejects_that_event_only() -> None:
    events = [_event("r-1"), _event("r-2")]
    log = _log(_Producer([_Meta(0, 0), MessageSizeTooLargeError("too big")]))
    with pytest.raises(RejectedError) as raised:
        log.append(events)
    assert raised.value.events == [events[1]]


def test_raw_records_keep_their_key_value_and_headers() -> None:
    producer = _Producer([_Meta(0, 3)])
    _log(producer, "dlq").append_records([(b"k", b"not an event", [("h", b"v")])])
    assert producer.sent == [("dlq", b"k", b"not an event", [("h", b"v")])]


def test_after_a_transient_failure_the_next_append_uses_a_new_producer() -> None:
    broken = _Producer([KafkaTimeoutError("no ack")])
    fresh = _Producer([_Meta(4, 40)])
    producers = iter([broken, fresh])
    log = KafkaEventLog(lambda: next(producers), bootstrap="a:1", topic="log", timeout_s=1.0)
    with pytest.raises(TransportError):
        log.append([_event("r-1")])
    assert broken.closed_with == 0  # retired at once, its pending records failed
    appended = log.append([_event("r-1")])
    assert [(a.partition, a.offset) for a in appended] == [(4, 40)]
    assert len(fresh.sent) == 1


def test_a_permanent_refusal_keeps_the_producer() -> None:
    producer = _Producer([MessageSizeTooLargeError("too big"), _Meta(0, 1)])
    opened: list[_Producer] = []

    def open_producer() -> _Producer:
        opened.append(producer)
        return producer

    log = KafkaEventLog(open_producer, bootstrap="a:1", topic="log", timeout_s=1.0)
    with pytest.raises(RejectedError):
        log.append([_event("r-1")])
    log.append([_event("r-2")])
    assert len(opened) == 1 and producer.closed_with is None


def test_kafka_down_when_opening_a_producer_is_a_transport_error() -> None:
    def unreachable() -> _Producer:
        raise OSError("connection refused")

    log = KafkaEventLog(unreachable, bootstrap="a:1", topic="log", timeout_s=1.0)
    with pytest.raises(TransportError, match="cannot connect to Kafka a:1"):
        log.append([_event("r-1")])
