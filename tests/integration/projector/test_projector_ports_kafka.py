"""The event-source and dead-letter contracts on Kafka: the adapters the projector runs on.

The same contracts run on the fakes in tests/unit/ingest/test_projector_ports_fakes.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from contracts.projector_ports import DeadLetterSinkContract, EventSourceContract, Letter
from kafka import KafkaConsumer, KafkaProducer

from provgraph.ingest.projector.deadletter import DeadLetters
from provgraph.ingest.projector.kafka_source import KafkaEventSource
from provgraph.ingest.settings import IngestSettings


class TestKafkaEventSource(EventSourceContract):
    @pytest.fixture(autouse=True)
    def _bind(self, settings: IngestSettings) -> Iterator[None]:
        self.settings = settings
        self.producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
        yield
        self.producer.close()

    def source(self) -> KafkaEventSource:
        return KafkaEventSource(self.settings)

    def append(
        self, partition: int, key: bytes, value: bytes, headers: tuple[tuple[str, bytes], ...] = ()
    ) -> None:
        topic = self.settings.events_topic
        sent = self.producer.send(
            topic, key=key, value=value, partition=partition, headers=list(headers)
        )
        sent.get(timeout=30)


def test_records_come_out_in_the_log_order_whatever_kafka_fetches_first(
    settings: IngestSettings,
) -> None:
    """Records written to three partitions in turn, a few milliseconds apart, read with a
    batch limit fifteen times smaller than the log: Kafka hands them over partition by
    partition, the source in the log's order (append time, ties by partition), and holds
    back about a batch per partition at most."""
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    limit, rounds = 4, 20
    try:
        for n in range(rounds * EventSourceContract.PARTITIONS):
            partition = (2, 0, 1)[n % 3]
            producer.send(settings.events_topic, value=f"{n}".encode(), partition=partition)
            producer.flush()
            time.sleep(0.002)
    finally:
        producer.close()
    source = KafkaEventSource(settings.model_copy(update={"projector_max_batch": limit}))
    source.subscribe(lambda partitions: [source.seek(p, None) for p in partitions])
    records, deadline, most_held = [], time.monotonic() + 60, 0
    try:
        while len(records) < rounds * 3 or not source.caught_up():
            batch = source.poll()
            records += batch
            most_held = max(most_held, source.held())
            assert time.monotonic() < deadline, f"{len(records)} records after 60 s"
    finally:
        source.close()
    keys = [(r.timestamp, r.partition, r.offset) for r in records]
    assert keys == sorted(keys) and len(set(keys)) == rounds * 3
    assert [int(r.value) for r in records] == list(range(rounds * 3))  # the order written
    assert most_held <= 2 * limit * EventSourceContract.PARTITIONS


class TestDeadLetters(DeadLetterSinkContract):
    @pytest.fixture(autouse=True)
    def _bind(self, settings: IngestSettings) -> None:
        self.settings = settings

    def sink(self) -> DeadLetters:
        return DeadLetters(self.settings)

    def letters(self, count: int) -> list[Letter]:
        consumer = KafkaConsumer(
            self.settings.dead_letter_topic,
            bootstrap_servers=self.settings.kafka_bootstrap,
            auto_offset_reset="earliest",
            consumer_timeout_ms=3000,
        )
        try:
            found: list[Letter] = []
            for record in consumer:
                found.append((record.key, record.value, dict(record.headers)))
                if len(found) == count:
                    break
            return found
        finally:
            consumer.close()
