"""Part 2 (Kafka client): kafka-python against confluent-kafka on the same topic and records."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer
from confluent_kafka import TopicPartition as ConfluentPartition
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from benchmarks.pipeline import Prepared
from benchmarks.report import Table, bar_plot, median, ratio
from benchmarks.servers import PrivateInfra

Records = Iterable[tuple[bytes, bytes]]
"""(key, value) records to produce, read once (a list or the workload's spill file)."""


def consume_kafka_python(bootstrap: str, topic: str, total: int) -> float:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    try:
        parts = sorted(consumer.partitions_for_topic(topic) or set())
        consumer.assign([TopicPartition(topic, p) for p in parts])
        consumer.seek_to_beginning()
        start, seen, size = time.perf_counter(), 0, 0
        while seen < total:
            for batch in consumer.poll(timeout_ms=1000, max_records=5000).values():
                seen += len(batch)
                size += sum(len(r.value) for r in batch)
        return time.perf_counter() - start
    finally:
        consumer.close(autocommit=False)


def consume_confluent(bootstrap: str, topic: str, total: int) -> float:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        # Assigned, not subscribed: a group join (and its rebalance delay) is not consuming.
        parts = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([ConfluentPartition(topic, p, OFFSET_BEGINNING) for p in parts])
        start, seen, size = time.perf_counter(), 0, 0
        while seen < total:
            for message in consumer.consume(num_messages=5000, timeout=1.0):
                if message.error() is None:
                    seen += 1
                    size += len(message.value() or b"")
        return time.perf_counter() - start
    finally:
        consumer.close()


def produce_kafka_python(bootstrap: str, topic: str, records: Records) -> float:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=20, compression_type="gzip"
    )
    start = time.perf_counter()
    for key, value in records:
        producer.send(topic, key=key, value=value)
    producer.flush()
    seconds = time.perf_counter() - start
    producer.close()
    return seconds


def produce_confluent(bootstrap: str, topic: str, records: Records) -> float:
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "linger.ms": 20,
            "compression.type": "gzip",
            "queue.buffering.max.messages": 2_000_000,
        }
    )
    start = time.perf_counter()
    for key, value in records:
        producer.produce(topic, key=key, value=value)
        producer.poll(0)
    producer.flush(120)
    return time.perf_counter() - start


def run(infra: PrivateInfra, data: Prepared, topic: str, repeat: int) -> Table:
    n, boot = len(data.records), infra.bootstrap
    timings: dict[str, list[float]] = {k: [] for k in ("cp", "cc", "pp", "pc")}
    for _ in range(repeat):
        # The group-less consumer with a warm cache for both; order alternates the cache state.
        timings["cc"].append(consume_confluent(boot, topic, n))
        timings["cp"].append(consume_kafka_python(boot, topic, n))
        timings["pp"].append(produce_kafka_python(boot, infra.new_topic("kp"), data.records))
        timings["pc"].append(produce_confluent(boot, infra.new_topic("kc"), data.records))
    rate = {k: n / median(v) for k, v in timings.items()}
    table = Table(
        "kafka_clients",
        f"Kafka clients on the same {n:,} records (median of {repeat})",
        [
            "operation",
            "kafka-python records/s",
            "confluent-kafka records/s",
            "confluent/kafka-python",
        ],
    )
    table.add("consume (whole topic)", rate["cp"], rate["cc"], ratio(rate["cc"], rate["cp"]))
    table.add("produce (acks=all, gzip)", rate["pp"], rate["pc"], ratio(rate["pc"], rate["pp"]))
    table.ratios = {
        "consume confluent/kafka-python": ratio(rate["cc"], rate["cp"]),
        "produce confluent/kafka-python": ratio(rate["pc"], rate["pp"]),
    }
    table.extra = {"seconds": timings}
    labels = [
        "consume kafka-python",
        "consume confluent",
        "produce kafka-python",
        "produce confluent",
    ]
    bar_plot(
        "kafka_clients",
        table.title,
        labels,
        [rate[k] for k in ("cp", "cc", "pp", "pc")],
        "records/s",
    )
    return table
