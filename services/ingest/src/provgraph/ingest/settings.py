"""Settings of the ingest service and the projector: one class, PROVGRAPH_* env vars."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class IngestSettings(BaseSettings):
    """Where the event log lives, how the HTTP ingest and the projector reach Kafka and Neo4j.

    `source .provgraph/env` (written by `provgraph infra up`) sets the connection values.
    """

    model_config = SettingsConfigDict(env_prefix="PROVGRAPH_", extra="ignore")

    kafka_bootstrap: str = "127.0.0.1:9092"
    events_topic: str = "provgraph.events"
    dead_letter_topic: str = "provgraph.events.dlq"
    topic_partitions: int = 6
    topic_replication: int = 1

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str = "neo4j"

    ingest_host: str = "127.0.0.1"
    ingest_port: int = 8080
    max_body_bytes: int = 8 * 1024 * 1024
    produce_timeout_s: float = 10.0
    # "auto": the best codec kafka-python can use here (zstd, then lz4, else gzip).
    produce_compression: str = "auto"
    produce_linger_ms: int = 5
    retry_after_s: int = 5
    ready_cache_s: float = 2.0

    # Authentication: on unless explicitly disabled (development only; logged at every start).
    auth_disabled: bool = False
    # How long an answer about a token (its principal and grants) may be reused.
    auth_cache_s: float = 1.0

    projector_group: str = "provgraph-projector"
    projector_max_batch: int = 5000
    projector_poll_timeout_ms: int = 500
    # A crashed projector's partitions move to the others after this long. Kafka's default,
    # 45 s, stalls the group that long after every crash; 10 s was too short for a busy
    # projector on a loaded 2-core machine (it lost its membership twice while working
    # through a 1M-event backlog; harmless for the graph, but a rebalance each time).
    projector_session_timeout_ms: int = 30_000
    # Retries while Neo4j is unavailable: exponential from the first delay, capped.
    projector_backoff_initial_s: float = 0.5
    projector_backoff_max_s: float = 10.0
    dead_letter_timeout_s: float = 30.0
