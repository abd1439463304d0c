"""The event-source and dead-letter contracts on Kafka: the adapters the projector runs on.

The same contracts run on the fakes in tests/unit/ingest/test_projector_ports_fakes.py.
"""

from __future__ import annotations

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
