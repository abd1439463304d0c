"""The real broker keeps every message, in order per partition."""

from __future__ import annotations

from collections import defaultdict

from kafka import KafkaConsumer, KafkaProducer

MESSAGES = 1000


def test_thousand_messages_come_back_in_order_per_partition(
    kafka_bootstrap: str, kafka_topic: str
) -> None:
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all", linger_ms=5)
    sent: dict[int, list[bytes]] = defaultdict(list)
    futures = []
    for i in range(MESSAGES):
        key = f"subject-{i % 17}".encode()
        futures.append((producer.send(kafka_topic, key=key, value=f"{i}".encode()), i))
    producer.flush()
    for future, i in futures:
        sent[future.get(timeout=30).partition].append(f"{i}".encode())
    producer.close()

    consumer = KafkaConsumer(
        kafka_topic,
        bootstrap_servers=kafka_bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=10_000,
    )
    received: dict[int, list[bytes]] = defaultdict(list)
    for message in consumer:
        received[message.partition].append(message.value)
        if sum(map(len, received.values())) == MESSAGES:
            break
    consumer.close()

    assert sum(map(len, received.values())) == MESSAGES
    assert len(sent) > 1, "17 keys over 3 partitions should use more than one partition"
    assert dict(received) == dict(sent)
