"""Fixtures of the projector tests: settings bound to a fresh topic, and a producer."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kafka import KafkaProducer

from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event


@pytest.fixture()
def settings(settings: IngestSettings) -> IngestSettings:
    """The shared settings with small poll batches, so every test spans several batches."""
    return settings.model_copy(update={"projector_max_batch": 7})


def _produce(settings: IngestSettings, events: list[Event], poison: list[bytes]) -> None:
    topic = settings.events_topic
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    for event in events:
        producer.send(topic, key=event.kafka_key(), value=event.to_json_bytes())
    for value in poison:
        producer.send(topic, key=b"poison", value=value)
    producer.flush()
    producer.close()


@pytest.fixture()
def produce() -> Callable[[IngestSettings, list[Event], list[bytes]], None]:
    """Write events (keyed by subject) and raw poison records to the settings' topic."""
    return _produce
