"""The Kafka event log passes the event-log contract against the real broker."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import closing

import pytest
from contracts.eventlog import EventLogContract, Stored, StoredHeaders, metric_event
from kafka import KafkaConsumer, KafkaProducer

from provgraph.client.errors import RejectedError, TransportError
from provgraph.client.eventlog import EventLog
from provgraph.client.kafka_log import KafkaEventLog, producer_config


def read_records(
    bootstrap: str, topic: str, expected: int, timeout_s: float = 30.0
) -> list[Stored]:
    """Every record of `topic` once at least `expected` arrived (or the timeout ran out)."""
    return [
        (p, o, k, v) for p, o, k, v, _ in read_with_headers(bootstrap, topic, expected, timeout_s)
    ]


def read_with_headers(
    bootstrap: str, topic: str, expected: int, timeout_s: float = 30.0
) -> list[tuple[int, int, bytes, bytes, list[tuple[str, bytes]]]]:
    """Every record of `topic` with its headers once at least `expected` arrived."""
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=1_000,
    )
    out: list[tuple[int, int, bytes, bytes, list[tuple[str, bytes]]]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            out += [(m.partition, m.offset, m.key, m.value, list(m.headers)) for m in consumer]
            if len(out) >= expected:
                break
    finally:
        consumer.close()
    return out


class TestKafkaEventLog(EventLogContract):
    @pytest.fixture()
    def log(self, kafka_bootstrap: str, kafka_topic: str) -> Iterator[EventLog]:
        with closing(KafkaEventLog.connect(kafka_bootstrap, topic=kafka_topic)) as log:
            yield log

    def read_back(self, log: EventLog, count: int) -> list[Stored]:
        assert isinstance(log, KafkaEventLog)
        return read_records(log.bootstrap, log.topic, count)

    def read_headers(self, log: EventLog, count: int) -> StoredHeaders:
        assert isinstance(log, KafkaEventLog)
        return {(p, o): h for p, o, _, _, h in read_with_headers(log.bootstrap, log.topic, count)}


def test_a_missing_topic_fails_the_probe(kafka_bootstrap: str) -> None:
    with closing(KafkaEventLog.connect(kafka_bootstrap, topic="t-none", timeout_s=2)) as log:
        with pytest.raises(TransportError) as raised:
            log.check_reachable()
        assert "does not exist" in str(raised.value)


def test_an_unreachable_broker_is_a_transport_error_not_a_refusal() -> None:
    with pytest.raises(TransportError) as raised:
        KafkaEventLog.connect("127.0.0.1:1", topic="t", timeout_s=1.0).append([metric_event(0, 0)])
    assert not isinstance(raised.value, RejectedError)


def test_dead_letters_keep_headers(kafka_bootstrap: str, kafka_topic: str) -> None:
    with closing(KafkaEventLog.connect(kafka_bootstrap, topic=kafka_topic)) as log:
        log.append_records([(b"k", b"{not json", [("error.class", b"ValueError")])])
    consumer = KafkaConsumer(
        kafka_topic,
        bootstrap_servers=kafka_bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=5_000,
    )
    try:
        records = list(consumer)
    finally:
        consumer.close()
    assert [(r.key, r.value, r.headers) for r in records] == [
        (b"k", b"{not json", [("error.class", b"ValueError")])
    ]


def _network_threads(client_id: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"{client_id}-network-thread"]


def test_a_retired_producer_sends_nothing_more(kafka_bootstrap: str, kafka_topic: str) -> None:
    """An append that was not acknowledged in time raises TransportError and the caller
    resends it: the producer that failed is stopped at once, dropping what it still held, so
    it neither lingers (its network thread) nor delivers the records later beside the resend."""
    client_id = f"retired-{kafka_topic}"
    # The records wait 300 ms to fill a batch, longer than the append may wait (50 ms).
    config = producer_config(kafka_bootstrap, timeout_s=10, linger_ms=300, client_id=client_id)
    log = KafkaEventLog(
        lambda: KafkaProducer(**config),
        bootstrap=kafka_bootstrap,
        topic=kafka_topic,
        timeout_s=0.05,
    )
    with closing(log):
        with pytest.raises(TransportError):
            log.append([metric_event(0, 0)])
        deadline = time.monotonic() + 5
        while _network_threads(client_id) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _network_threads(client_id) == []
        assert read_records(kafka_bootstrap, kafka_topic, 1, timeout_s=3) == []
        log.timeout_s = 10  # the resend, through a new producer, is delivered once
        log.append([metric_event(0, 0)])
        assert len(read_records(kafka_bootstrap, kafka_topic, 2, timeout_s=3)) == 1
