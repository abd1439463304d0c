"""The event log as the services open it: its topics created on purpose, then the producer.

The port and its adapters live in the SDK (`provgraph.client.eventlog`, `.kafka_log`), the
lowest part that produces; what only servers do, creating the topics, lives here.
"""

from __future__ import annotations

import contextlib
import logging

from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, TopicAlreadyExistsError

from provgraph.client.errors import TransportError
from provgraph.client.kafka_log import KafkaEventLog
from provgraph.core import kafka_clients
from provgraph.core.settings import KafkaSettings

log = logging.getLogger(__name__)

# The log is the source of truth: keep every event forever, never compact it away.
LOG_CONFIG = {"retention.ms": "-1", "retention.bytes": "-1", "cleanup.policy": "delete"}
# The event log's record times are the broker's (server time): no producer can choose them,
# and a replay reads the same ones. The projector orders grants, revocations and deletes so.
TIMESTAMP_TYPE, LOG_APPEND_TIME = "message.timestamp.type", "LogAppendTime"
EVENTS_CONFIG = {**LOG_CONFIG, TIMESTAMP_TYPE: LOG_APPEND_TIME}
MIN_INSYNC = "min.insync.replicas"


def ensure_topics(settings: KafkaSettings) -> list[str]:
    """Create the event log and dead-letter topics when missing, and give an existing event
    log the broker's append time; return the topics created."""
    # Kafka down: an error within the producer's timeout, not a hang.
    admin = kafka_clients.admin_client(
        settings.kafka_bootstrap, timeout_s=settings.produce_timeout_s
    )
    try:
        existing = set(admin.list_topics())
        # A write is acknowledged (acks=all) once this many copies hold it.
        insync = {MIN_INSYNC: str(settings.topic_min_insync_replicas)}
        configs = {
            settings.events_topic: {**EVENTS_CONFIG, **insync},
            settings.dead_letter_topic: {**LOG_CONFIG, **insync},
        }
        new = [
            NewTopic(
                name,
                num_partitions=settings.topic_partitions,
                replication_factor=settings.topic_replication,
                topic_configs=config,
            )
            for name, config in configs.items()
            if name not in existing
        ]
        if new:
            # Another process may win the race; the topic is there either way.
            with contextlib.suppress(TopicAlreadyExistsError):
                admin.create_topics(new)
        if settings.events_topic in existing:
            ensure_log_append_time(admin, settings.events_topic)
        return [topic.name for topic in new]
    finally:
        admin.close()


def ensure_log_append_time(admin: KafkaAdminClient, topic: str) -> bool:
    """Set `message.timestamp.type=LogAppendTime` on `topic` unless it is set (an incremental
    change: its other settings stay); True when it was changed."""
    wanted = ConfigResource(ConfigResourceType.TOPIC, topic, [TIMESTAMP_TYPE])
    found = admin.describe_configs([wanted], config_filter="all")
    current = found.get("topic", {}).get(topic, {}).get(TIMESTAMP_TYPE, {}).get("value")
    if current == LOG_APPEND_TIME:
        return False
    change = ConfigResource(ConfigResourceType.TOPIC, topic, {TIMESTAMP_TYPE: LOG_APPEND_TIME})
    result = admin.alter_configs([change]).get("topic", {}).get(topic)
    if result != "OK":
        raise KafkaError(f"cannot set {TIMESTAMP_TYPE}={LOG_APPEND_TIME} on {topic}: {result}")
    log.info("topic %s: %s was %s, now %s", topic, TIMESTAMP_TYPE, current, LOG_APPEND_TIME)
    return True


def open_event_log(settings: KafkaSettings, *, client_id: str) -> KafkaEventLog:
    """The event log, its topics created first when missing; `TransportError` if Kafka is down."""
    try:
        created = ensure_topics(settings)
    except KafkaError as exc:
        raise TransportError(f"cannot create the event-log topics: {exc}") from exc
    if created:
        log.info("created topics %s", ", ".join(created))
    return settings.event_log(client_id=client_id)
