"""The event-source and dead-letter contracts on Kafka: the adapters the projector runs on.

The same contracts run on the fakes in tests/unit/ingest/test_projector_ports_fakes.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from contracts.projector_ports import DeadLetterSinkContract, EventSourceContract, Letter
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic

from provgraph.core import kafka_clients
from provgraph.core.eventlog import LOG_APPEND_TIME, TIMESTAMP_TYPE
from provgraph.ingest.ports import LogRecord
from provgraph.ingest.projector.deadletter import DeadLetters
from provgraph.ingest.projector.kafka_source import KafkaEventSource
from provgraph.ingest.settings import IngestSettings


class TestKafkaEventSource(EventSourceContract):
    @pytest.fixture(autouse=True)
    def _bind(self, settings: IngestSettings) -> Iterator[None]:
        self.settings = settings
        self.producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
        yield
        self.producer.close()

    def source(self) -> KafkaEventSource:
        return KafkaEventSource(self.settings)

    def append(
        self, partition: int, key: bytes, value: bytes, headers: tuple[tuple[str, bytes], ...] = ()
    ) -> None:
        topic = self.settings.events_topic
        sent = self.producer.send(
            topic, key=key, value=value, partition=partition, headers=list(headers)
        )
        sent.get(timeout=30)


def test_records_come_out_in_the_log_order_whatever_kafka_fetches_first(
    settings: IngestSettings,
) -> None:
    """Records written to three partitions in turn, a few milliseconds apart, read with a
    batch limit fifteen times smaller than the log: Kafka hands them over partition by
    partition, the source in the log's order (append time, ties by partition), and holds
    back about a batch per partition at most."""
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    limit, rounds = 4, 20
    try:
        for n in range(rounds * EventSourceContract.PARTITIONS):
            partition = (2, 0, 1)[n % 3]
            producer.send(settings.events_topic, value=f"{n}".encode(), partition=partition)
            producer.flush()
            time.sleep(0.002)
    finally:
        producer.close()
    source = KafkaEventSource(settings.model_copy(update={"projector_max_batch": limit}))
    source.subscribe(lambda partitions: [source.seek(p, None) for p in partitions])
    records, deadline, most_held = [], time.monotonic() + 60, 0
    try:
        while len(records) < rounds * 3 or not source.caught_up():
            batch = source.poll()
            records += batch
            most_held = max(most_held, source.held())
            assert time.monotonic() < deadline, f"{len(records)} records after 60 s"
    finally:
        source.close()
    keys = [(r.timestamp, r.partition, r.offset) for r in records]
    assert keys == sorted(keys) and len(set(keys)) == rounds * 3
    assert [int(r.value) for r in records] == list(range(rounds * 3))  # the order written
    assert most_held <= 2 * limit * EventSourceContract.PARTITIONS


def test_a_record_beside_idle_partitions_waits_the_order_wait_not_the_fetch_wait(
    settings: IngestSettings,
) -> None:
    """One record on one partition, the others idle: the gate holds it until it knows the
    others are read to their end, and asks the broker. The group's consumer meanwhile has a
    fetch waiting at the broker for up to its fetch wait (20 s here), and a broker answers a
    connection's requests in order: asked on that connection, each question waited behind the
    fetch, and the record with it (500 ms a time at the default). Asked on connections of
    their own, the record comes out about the order wait (100 ms) after its append time; the
    bound below is half the fetch wait, far above that."""
    fetch_wait_s = 20
    slow = settings.model_copy(update={"projector_fetch_max_wait_ms": fetch_wait_s * 1000})
    source = KafkaEventSource(slow)
    source.subscribe(lambda partitions: [source.seek(p, None) for p in partitions])
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    try:
        deadline = time.monotonic() + 60
        while len(source.assigned()) < EventSourceContract.PARTITIONS:
            assert not source.poll()
            assert time.monotonic() < deadline, "not assigned after 60 s"
        assert not source.poll()  # the topic is empty: a fetch is left waiting at the broker
        producer.send(settings.events_topic, value=b"alone", partition=1).get(timeout=30)
        start, released = time.monotonic(), []
        while not released and time.monotonic() - start < 3 * fetch_wait_s:
            released = source.poll()
        waited = time.monotonic() - start
    finally:
        producer.close()
        source.close()
    assert [r.value for r in released] == [b"alone"]
    assert waited < fetch_wait_s / 2, f"released after {waited:.1f} s"


def test_append_times_holding_more_than_a_batch_on_several_partitions_do_not_stall(
    settings: IngestSettings,
) -> None:
    """Rounds of 20 records to each of three partitions, flushed together: the broker appends
    each partition's batch at one append time (`LogAppendTime`), often the same millisecond
    on several partitions, and a batch limit of 7. Every record comes out once, in the log's
    order, and the source never goes 20 s without releasing one (trimming a partition that
    holds more than a batch once dropped the record after the next append time, and the gate
    waited on it for ever)."""
    topic = f"{settings.events_topic}-bursts"
    burst = settings.model_copy(
        update={
            "events_topic": topic,
            "projector_group": f"{settings.projector_group}-bursts",
            "projector_max_batch": 7,
        }
    )
    rounds, per = 8, 20
    config = {TIMESTAMP_TYPE: LOG_APPEND_TIME}
    admin = kafka_clients.admin_client(settings.kafka_bootstrap, timeout_s=30)
    try:
        admin.create_topics(
            [NewTopic(topic, num_partitions=3, replication_factor=1, topic_configs=config)]
        )
        records = _read_bursts(burst, rounds, per)
    finally:
        try:
            admin.delete_topics([topic])
        finally:
            admin.close()
    keys = [(r.timestamp, r.partition, r.offset) for r in records]
    assert keys == sorted(keys) and len(set(keys)) == rounds * 3 * per
    # what the test is about: one millisecond held more than a batch on two partitions
    sizes: dict[int, dict[int, int]] = {}
    for r in records:
        at = sizes.setdefault(r.timestamp, {})
        at[r.partition] = at.get(r.partition, 0) + 1
    assert any(sum(n > 7 for n in at.values()) >= 2 for at in sizes.values())


def _read_bursts(settings: IngestSettings, rounds: int, per: int) -> list[LogRecord]:
    """Write `rounds` of `per` records to each of the three partitions of the settings' topic
    (the three batches of a round in one request), then read them all with the Kafka source;
    fails when nothing comes out for 20 s."""
    topic = settings.events_topic
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all", linger_ms=1000)
    try:
        for n in range(rounds):
            for p in range(3):
                for i in range(per):
                    producer.send(topic, value=f"{n}/{p}/{i}".encode(), partition=p)
            producer.flush(timeout=30)  # the three batches in one request
    finally:
        producer.close()
    source = KafkaEventSource(settings)
    source.subscribe(lambda partitions: [source.seek(p, None) for p in partitions])
    records: list[LogRecord] = []
    deadline, released_at = time.monotonic() + 120, time.monotonic()
    try:
        while len(records) < rounds * 3 * per or not source.caught_up():
            batch = source.poll()
            if batch:
                records += batch
                released_at = time.monotonic()
            stalled = time.monotonic() - released_at
            assert stalled < 20, f"nothing released for 20 s after {len(records)} records"
            assert time.monotonic() < deadline, f"{len(records)} records after 120 s"
    finally:
        source.close()
    return records


class TestDeadLetters(DeadLetterSinkContract):
    @pytest.fixture(autouse=True)
    def _bind(self, settings: IngestSettings) -> None:
        self.settings = settings

    def sink(self) -> DeadLetters:
        return DeadLetters(self.settings)

    def letters(self, count: int) -> list[Letter]:
        consumer = KafkaConsumer(
            self.settings.dead_letter_topic,
            bootstrap_servers=self.settings.kafka_bootstrap,
            auto_offset_reset="earliest",
            consumer_timeout_ms=3000,
        )
        try:
            found: list[Letter] = []
            for record in consumer:
                found.append((record.key, record.value, dict(record.headers)))
                if len(found) == count:
                    break
            return found
        finally:
            consumer.close()
