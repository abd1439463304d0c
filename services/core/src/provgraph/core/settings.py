"""The settings base of every provgraph service: PROVGRAPH_* variables, connection fields once.

Each service has one settings class that inherits the connection groups it needs; the fields,
their names and their defaults are written here only.
"""

from __future__ import annotations

from typing import Any, Self

import neo4j
from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from provgraph.client.kafka_log import KafkaEventLog


class ProvgraphSettings(BaseSettings):
    """Read from PROVGRAPH_* environment variables; unknown variables are ignored."""

    model_config = SettingsConfigDict(env_prefix="PROVGRAPH_", extra="ignore")


class Neo4jSettings(ProvgraphSettings):
    """How to reach the Neo4j read model.

    `neo4j://` (the default) is the routing driver: it serves one server and a cluster alike,
    sending writes to the leader of the database and read transactions to any member.
    `bolt://` talks to exactly one server, without routing.
    """

    neo4j_uri: str = "neo4j://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str = "neo4j"

    def neo4j_driver(self, **config: Any) -> neo4j.Driver:
        """A driver for these settings (the caller closes it).

        Neo4j's INFORMATION notifications (e.g. "constraint already exists" for every
        idempotent schema statement) are not logged unless asked for: warnings still are,
        except the UNRECOGNIZED ones ("the property `number` does not exist"), which a young
        graph answers to every statement naming a property or type no event has written yet.
        """
        config.setdefault("notifications_min_severity", "WARNING")
        config.setdefault("notifications_disabled_classifications", ["UNRECOGNIZED"])
        auth = (self.neo4j_user, self.neo4j_password)
        return neo4j.GraphDatabase.driver(self.neo4j_uri, auth=auth, **config)


class KafkaSettings(ProvgraphSettings):
    """How to reach the event log, and how its producer waits and compresses."""

    kafka_bootstrap: str = "127.0.0.1:9092"
    events_topic: str = "provgraph.events"
    dead_letter_topic: str = "provgraph.events.dlq"
    topic_partitions: int = 6
    # Copies of each topic, and how many must have a record before it is acknowledged (the
    # producer sends with acks=all): 1 and 1 for one broker; `infra up --brokers 3` writes
    # 3 and 2 to the env file, so that one broker may be lost without losing a write.
    topic_replication: int = Field(default=1, ge=1)
    topic_min_insync_replicas: int = Field(default=1, ge=1)
    produce_timeout_s: float = 10.0
    # "auto": the best codec kafka-python can use here (zstd, then lz4, else gzip).
    produce_compression: str = "auto"
    produce_linger_ms: int = 5

    @model_validator(mode="after")
    def _insync_within_replication(self) -> Self:
        if self.topic_min_insync_replicas > self.topic_replication:
            raise ValueError(
                f"PROVGRAPH_TOPIC_MIN_INSYNC_REPLICAS={self.topic_min_insync_replicas} is more "
                f"than PROVGRAPH_TOPIC_REPLICATION={self.topic_replication}: no write to the "
                "event log could ever be acknowledged"
            )
        return self

    def event_log(
        self, *, client_id: str, topic: str | None = None, timeout_s: float | None = None
    ) -> KafkaEventLog:
        """The event log's producer on `topic` (default: the event log), connected now (the
        caller closes it); `TransportError` when Kafka cannot be reached."""
        return KafkaEventLog.connect(
            self.kafka_bootstrap,
            topic=topic or self.events_topic,
            timeout_s=timeout_s if timeout_s is not None else self.produce_timeout_s,
            compression=self.produce_compression,
            linger_ms=self.produce_linger_ms,
            client_id=client_id,
        )


class AuthSettings(ProvgraphSettings):
    """Bearer-token authentication of an HTTP service."""

    # On unless explicitly disabled (development only; logged at every start).
    auth_disabled: bool = False
    # How long an answer about a token (its principal and grants) may be reused.
    auth_cache_s: float = 1.0
    # How many valid (and, apart, unknown) tokens the answer cache holds (least recently used
    # out first).
    auth_cache_entries: int = Field(default=10_000, ge=1)
    # Requests per valid token: a token bucket refilled at this rate (0: no limit); 429 past it.
    auth_rate_per_s: float = Field(default=500.0, ge=0)
    auth_rate_burst: int = Field(default=1_000, ge=1)
    # Failed authentications per client address (no token, an unknown or revoked one).
    auth_failure_rate_per_s: float = Field(default=20.0, ge=0)
    auth_failure_burst: int = Field(default=100, ge=1)
