"""Fixtures of the projector tests: settings bound to a fresh topic, and a producer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kafka import KafkaProducer
from projector_processes import ProjectorProcess

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


@pytest.fixture()
def projector_process(tmp_path: Path) -> Iterator[Callable[[IngestSettings], ProjectorProcess]]:
    """Builds projector processes that are always killed at the end of the test."""
    made: list[ProjectorProcess] = []

    def make(settings: IngestSettings) -> ProjectorProcess:
        made.append(ProjectorProcess(settings, tmp_path / f"projector-{len(made)}.log"))
        return made[-1]

    yield make
    for process in made:
        process.kill()


@pytest.fixture()
def cli_env(settings: IngestSettings, monkeypatch: pytest.MonkeyPatch) -> IngestSettings:
    """The settings, with the `provgraph` command line pointed at the same servers."""
    endpoint = {
        "PROVGRAPH_KAFKA_BOOTSTRAP": settings.kafka_bootstrap,
        "PROVGRAPH_NEO4J_URI": settings.neo4j_uri,
        "PROVGRAPH_NEO4J_USER": settings.neo4j_user,
        "PROVGRAPH_NEO4J_PASSWORD": settings.neo4j_password,
    }
    for name, value in endpoint.items():
        monkeypatch.setenv(name, value)
    return settings
