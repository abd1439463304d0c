"""Private servers for fault tests really stop, and come back with their data."""

from __future__ import annotations

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from provgraph.infra.process import port_accepts


def test_private_kafka_is_killed_and_restarts_with_its_data(private_kafka) -> None:  # type: ignore[no-untyped-def]
    admin = KafkaAdminClient(bootstrap_servers=private_kafka.bootstrap)
    admin.create_topics([NewTopic("durable", num_partitions=1, replication_factor=1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=private_kafka.bootstrap, acks="all")
    producer.send("durable", b"kept").get(timeout=30)
    producer.close()

    host, port = private_kafka.bootstrap.split(":")
    private_kafka.kill()
    assert not port_accepts(host, int(port))
    private_kafka.start()

    consumer = KafkaConsumer(
        "durable",
        bootstrap_servers=private_kafka.bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=20_000,
    )
    values = []
    for message in consumer:
        values.append(message.value)
        break
    consumer.close()
    assert values == [b"kept"]
