"""The event log and its dead-letter topic: created on purpose, kept forever, never compacted."""

from __future__ import annotations

import contextlib

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import TopicAlreadyExistsError

from provgraph.ingest.settings import IngestSettings

# The log is the source of truth: keep every event forever, never compact it away.
LOG_CONFIG = {"retention.ms": "-1", "retention.bytes": "-1", "cleanup.policy": "delete"}


def ensure_topics(settings: IngestSettings) -> list[str]:
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
