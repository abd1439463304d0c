"""Kafka transport: the batch appended to the event log through `KafkaEventLog`."""

from __future__ import annotations

from typing import Any

from provgraph.client.config import DEFAULT_TOPIC, env
from provgraph.client.errors import ConfigError
from provgraph.client.kafka_log import KafkaEventLog
from provgraph.client.transport import Transport
from provgraph.schemas import Event


class KafkaTransport(Transport):
    """Produces to `topic` with key = subject, so one entity's events stay in order.

    The producer is idempotent with ``acks=all``; `send` waits for every acknowledgement (at
    most `timeout_s`). After a transient failure the event log sends with a new producer, so
    no half-broken producer state outlives an error. Only kafka-python's public API is used.
    `producer_config` holds KafkaProducer options of your own (they win).
    """

    def __init__(
        self,
        bootstrap_servers: str | None = None,
        *,
        topic: str | None = None,
        timeout_s: float = 10.0,
        compression_type: str | None = "gzip",
        **producer_config: Any,
    ) -> None:
        bootstrap_servers = bootstrap_servers or env("KAFKA_BOOTSTRAP")
        if not bootstrap_servers:
            raise ConfigError(
                "no Kafka bootstrap: pass bootstrap_servers or set PROVGRAPH_KAFKA_BOOTSTRAP"
            )
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic or env("EVENTS_TOPIC") or DEFAULT_TOPIC
        self.timeout_s = timeout_s
        self._options: dict[str, Any] = {
            "compression": compression_type,
            "client_id": "provgraph-client",
            **producer_config,
        }
        self._log: KafkaEventLog | None = None

    def describe(self) -> str:
        return f"Kafka {self.bootstrap_servers} topic {self.topic}"

    def send(self, batch: list[Event]) -> None:
        if not batch:
            return
        self._event_log().append(batch)

    def close(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            log.close()

    def _event_log(self) -> KafkaEventLog:
        if self._log is None:
            self._log = KafkaEventLog.connect(
                self.bootstrap_servers, topic=self.topic, timeout_s=self.timeout_s, **self._options
            )
        return self._log
