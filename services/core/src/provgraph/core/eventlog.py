"""The event log as the services open it: its topics created on purpose, then the producer.

The port and its adapters live in the SDK (`provgraph.client.eventlog`, `.kafka_log`), the
lowest part that produces; what only servers do, creating the topics, lives here.
"""

from __future__ import annotations

import contextlib
import logging

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

from provgraph.client.errors import TransportError
from provgraph.client.kafka_log import KafkaEventLog
from provgraph.core.settings import KafkaSettings

log = logging.getLogger(__name__)

# The log is the source of truth: keep every event forever, never compact it away.
LOG_CONFIG = {"retention.ms": "-1", "retention.bytes": "-1", "cleanup.policy": "delete"}


def ensure_topics(settings: KafkaSettings) -> list[str]:
    """Create the event log and dead-letter topics when missing; return the ones created."""
    admin = KafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    try:
        existing = set(admin.list_topics())
        wanted = [settings.events_topic, settings.dead_letter_topic]
        new = [
            NewTopic(
                name,
                num_partitions=settings.topic_partitions,
                replication_factor=settings.topic_replication,
                topic_configs=LOG_CONFIG,
            )
            for name in wanted
            if name not in existing
        ]
        if new:
            # Another process may win the race; the topic is there either way.
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(new)
        return [topic.name for topic in new]
    finally:
        admin.close()


def open_event_log(settings: KafkaSettings, *, client_id: str) -> KafkaEventLog:
    """The event log, its topics created first when missing; `TransportError` if Kafka is down."""
    try:
        created = ensure_topics(settings)
    except KafkaError as exc:
        raise TransportError(f"cannot create the event-log topics: {exc}") from exc
    if created:
        log.info("created topics %s", ", ".join(created))
    return settings.event_log(client_id=client_id)
