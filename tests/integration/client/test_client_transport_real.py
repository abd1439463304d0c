"""The Kafka and HTTP transports pass the transport contract: the real broker, and the ingest
app served over HTTP in front of it. What arrived is read back from the topic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_kafka_helpers import read_topic
from contracts.transport import Delivered, Receiver, TransportContract
from support.http_service import free_port, served

from provgraph.client import HttpTransport, KafkaTransport
from provgraph.client.transport import Transport
from provgraph.ingest.app import create_app
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event


def topic_reader(bootstrap: str, topic: str) -> Delivered:
    def delivered(count: int) -> list[Event]:
        return [event for _, event in read_topic(bootstrap, topic, expected=count)]

    return delivered


class TestKafkaTransport(TransportContract):
    @pytest.fixture()
    def receiver(self, kafka_bootstrap: str, kafka_topic: str) -> Iterator[Receiver]:
        transport = KafkaTransport(kafka_bootstrap, topic=kafka_topic, timeout_s=10.0)
        yield Receiver(transport, topic_reader(kafka_bootstrap, kafka_topic))
        transport.close()

    @pytest.fixture()
    def unreachable(self) -> Iterator[Transport]:
        transport = KafkaTransport(f"127.0.0.1:{free_port()}", topic="t", timeout_s=1.0)
        yield transport
        transport.close()


class TestHttpTransport(TransportContract):
    @pytest.fixture()
    def receiver(
        self, settings: IngestSettings, admin_headers: dict[str, str]
    ) -> Iterator[Receiver]:
        token = admin_headers["Authorization"].removeprefix("Bearer ")
        with served(create_app(settings)) as url:
            transport = HttpTransport(url, token=token, timeout_s=10.0)
            yield Receiver(transport, topic_reader(settings.kafka_bootstrap, settings.events_topic))
            transport.close()

    @pytest.fixture()
    def unreachable(self) -> Transport:
        return HttpTransport(f"http://127.0.0.1:{free_port()}", timeout_s=1.0)
