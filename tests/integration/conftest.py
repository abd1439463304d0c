"""Fixtures shared by integration tests: settings bound to a fresh event-log topic."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, NewTopic
from neo4j import Driver

from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.settings import IngestSettings


@pytest.fixture()
def settings(
    kafka_bootstrap: str, kafka_topic: str, neo4j_endpoint: Any, neo4j_driver: Driver
) -> Iterator[IngestSettings]:
    """Ingest/projector settings on the test's own topic, DLQ and consumer group."""
    apply_schema(neo4j_driver)
    dlq = f"{kafka_topic}.dlq"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(dlq, num_partitions=1, replication_factor=1)])
    yield IngestSettings(
        kafka_bootstrap=kafka_bootstrap,
        events_topic=kafka_topic,
        dead_letter_topic=dlq,
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        projector_group=f"{kafka_topic}-group",
        projector_poll_timeout_ms=200,
    )
    admin.delete_topics([dlq])
    admin.close()
    neo4j_driver.execute_query("MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=kafka_topic)
