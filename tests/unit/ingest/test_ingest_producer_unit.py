"""The Kafka adapter's pure parts: configuration, error translation, the readiness cache."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from kafka.codec import has_lz4, has_zstd
from kafka.errors import KafkaTimeoutError, MessageSizeTooLargeError

from provgraph.ingest.errors import EventLogError, EventLogUnavailableError, NotReadyError
from provgraph.ingest.producer import (
    KafkaEventLog,
    ReadinessCache,
    choose_compression,
    producer_config,
)
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event, RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload


def test_auto_compression_is_the_best_available_codec() -> None:
    expected = "zstd" if has_zstd() else "lz4" if has_lz4() else "gzip"
    assert choose_compression("auto") == expected
    assert choose_compression("none") is None
    assert choose_compression("gzip") == "gzip"


def test_producer_is_durable_and_bounded_by_the_produce_timeout() -> None:
    config = producer_config(IngestSettings(kafka_bootstrap="a:1,b:2", produce_timeout_s=2.5))
    assert config["bootstrap_servers"] == ["a:1", "b:2"]
    assert config["acks"] == "all" and config["enable_idempotence"] is True
    assert config["max_block_ms"] == config["request_timeout_ms"] == 2500
    assert config["delivery_timeout_ms"] >= config["request_timeout_ms"] + config["linger_ms"]


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
        self.sent: list[tuple[str, bytes, bytes]] = []

    def send(self, topic: str, key: bytes, value: bytes) -> _Future:
        self.sent.append((topic, key, value))
        return _Future(self.outcomes.pop(0))


def _event(run: str) -> Event:
    payload = RunStartedPayload(run_id=run)
    return RunStarted.create(
        project="p", producer="https://example.com/t", actor="ci:t", payload=payload
    )


def test_append_sends_key_subject_value_canonical_json() -> None:
    producer = _Producer([_Meta(1, 10), _Meta(2, 20)])
    log = KafkaEventLog(IngestSettings(events_topic="log"), producer)
    events = [_event("r-1"), _event("r-2")]
    appended = log.append(events)
    assert [(a.partition, a.offset) for a in appended] == [(1, 10), (2, 20)]
    assert producer.sent == [("log", e.kafka_key(), e.to_json_bytes()) for e in events]
    assert producer.sent[0][1] == b"run:r-1"


@pytest.mark.parametrize(
    ("failure", "error", "status"),
    [
        (KafkaTimeoutError("no ack"), EventLogUnavailableError, 503),
        (MessageSizeTooLargeError("too big"), EventLogError, 500),
    ],
)
def test_kafka_failures_become_typed_errors(
    failure: Exception, error: type[EventLogError], status: int
) -> None:
    log = KafkaEventLog(IngestSettings(retry_after_s=9), _Producer([_Meta(0, 0), failure]))
    with pytest.raises(error) as raised:
        log.append([_event("r-1"), _event("r-2")])
    assert type(raised.value) is error and raised.value.status == status
    if status == 503:
        assert raised.value.headers() == {"Retry-After": "9"}


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_readiness_is_cached_for_the_ttl() -> None:
    calls: list[float] = []
    clock = _Clock()
    outcomes: list[Any] = [None, NotReadyError("down")]

    def check() -> None:
        calls.append(clock.now)
        outcome = outcomes.pop(0)
        if outcome is not None:
            raise outcome

    cache = ReadinessCache(check, ttl_s=2.0, clock=clock)
    cache.check()
    clock.now += 1.9
    cache.check()  # still the cached good answer
    assert len(calls) == 1
    clock.now += 0.2
    with pytest.raises(NotReadyError):
        cache.check()
    with pytest.raises(NotReadyError):
        cache.check()  # the cached bad answer
    assert len(calls) == 2
