"""Kafka's consumers and admin clients, built here only, with the options every one shares.

The event log's one producer is built beside them (`KafkaSettings.event_log`, with the SDK's
`provgraph.client.kafka_log.producer_config`); the services, the projector, the audit tools
and the launcher build every other Kafka client through `consumer` and `admin_client`, so a
choice made for all of them (how fast to reconnect, that nothing commits behind our back) is
made once.
"""

from __future__ import annotations

from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer

# Back within a second of a restarted broker (kafka-python's own cap is 30 s), as the producer.
RECONNECT_BACKOFF_MAX_MS = 1000


def consumer(
    bootstrap: str, *, group_id: str | None = None, client_id: str = "provgraph", **options: Any
) -> KafkaConsumer:
    """A consumer of `bootstrap` (comma-separated host:port), in consumer group `group_id` or
    in none (the caller assigns partitions). Offsets are committed only when the caller says
    so: every provgraph reader decides what it has done. `options` are KafkaConsumer's own and
    win over the shared ones."""
    shared: dict[str, Any] = {
        "bootstrap_servers": bootstrap.split(","),
        "group_id": group_id,
        "client_id": client_id,
        "enable_auto_commit": False,
        "reconnect_backoff_max_ms": RECONNECT_BACKOFF_MAX_MS,
    }
    return KafkaConsumer(**{**shared, **options})


def admin_client(
    bootstrap: str, *, timeout_s: float, client_id: str = "provgraph", **options: Any
) -> KafkaAdminClient:
    """An admin client of `bootstrap`, connected now: reaching the cluster and each request
    wait at most `timeout_s` (Kafka down is an error, not a hang). `options` are
    KafkaAdminClient's own and win over the shared ones."""
    timeout_ms = int(timeout_s * 1000)
    shared: dict[str, Any] = {
        "bootstrap_servers": bootstrap.split(","),
        "client_id": client_id,
        "bootstrap_timeout_ms": timeout_ms,
        "request_timeout_ms": timeout_ms,
        "reconnect_backoff_max_ms": RECONNECT_BACKOFF_MAX_MS,
    }
    return KafkaAdminClient(**{**shared, **options})
