"""The whole-log merge (`read_log_in_order`) against a real broker, at sizes well above its
batch, and `provgraph replay` / `provgraph verify` over partitions larger than their batch."""

from __future__ import annotations

import threading

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from neo4j import Driver
from support.projection_workload import Workload

from provgraph.cli import main
from provgraph.ingest.ports import LogRecord
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import KafkaPartitionReader, LogReadError, read_log_in_order
from provgraph.ingest.tools.verify import graph_hash

Counts = dict[int, int]


def _write(settings: IngestSettings, counts: Counts, start: int = 0) -> None:
    """`counts[p]` records to partition p, interleaved in time across partitions."""
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, linger_ms=5)
    for i in range(start, start + max(counts.values())):
        for p, n in counts.items():
            if i < start + n:
                producer.send(settings.events_topic, value=f"{p}:{i}".encode(), partition=p)
    producer.flush()
    producer.close()


def _check_order(records: list[LogRecord], counts: Counts) -> None:
    assert len(records) == sum(counts.values())
    seen = {(r.partition, r.offset) for r in records}
    assert seen == {(p, o) for p, n in counts.items() for o in range(n)}
    keys = [(r.timestamp, r.partition) for r in records]
    assert keys == sorted(keys), "not merged by append time, ties by partition"


def _read(settings: IngestSettings, batch: int) -> tuple[list[LogRecord], list[int]]:
    records: list[LogRecord] = []
    sizes = []
    for chunk in read_log_in_order(settings, batch=batch, stall_s=30):
        sizes.append(len(chunk))
        records.extend(chunk)
    return records, sizes


def test_600_records_in_3_partitions_read_50_at_a_time(settings: IngestSettings) -> None:
    counts = {0: 200, 1: 200, 2: 200}
    _write(settings, counts)
    records, sizes = _read(settings, batch=50)
    _check_order(records, counts)
    assert sizes == [50] * 12


def test_partitions_written_one_after_another(settings: IngestSettings) -> None:
    # the shape that stopped the earlier pause/resume merge after 250 of 600 records
    for p in range(3):
        _write(settings, {p: 200}, start=1000 * p)
    records, sizes = _read(settings, batch=50)
    _check_order(records, {0: 200, 1: 200, 2: 200})
    assert [r.partition for r in records] == [0] * 200 + [1] * 200 + [2] * 200
    assert sizes == [50] * 12


def test_partitions_of_very_different_lengths_and_an_empty_one(settings: IngestSettings) -> None:
    counts = {0: 1500, 1: 45}
    _write(settings, counts)
    records, sizes = _read(settings, batch=40)
    _check_order(records, counts)
    assert max(sizes) == 40 and sum(sizes) == 1545


def test_records_written_while_it_reads_are_left_for_the_next_reader(
    settings: IngestSettings,
) -> None:
    counts = {0: 400, 1: 300, 2: 350}
    _write(settings, counts)
    later = {0: 200, 1: 200, 2: 200}
    records: list[LogRecord] = []
    writer: threading.Thread | None = None
    for chunk in read_log_in_order(settings, batch=30, stall_s=30):
        records.extend(chunk)
        if writer is None:
            writer = threading.Thread(target=_write, args=(settings, later, 1000))
            writer.start()
    assert writer is not None
    writer.join()
    _check_order(records, counts)
    whole, _ = _read(settings, batch=500)
    assert len(whole) == 1050 + 600


def test_a_partition_that_stops_giving_records_is_an_error_not_a_hang(
    settings: IngestSettings,
) -> None:
    _write(settings, {0: 10})
    consumer = KafkaConsumer(bootstrap_servers=settings.kafka_bootstrap, group_id=None)
    tp = TopicPartition(settings.events_topic, 0)
    try:
        reader = KafkaPartitionReader(consumer, batch=4, stall_s=1.0)
        assert len(reader.read(tp, 0, 10)[0]) == 4
        records, position = reader.read(tp, 8, 10)
        assert ([r.offset for r in records], position) == ([8, 9], 10)
        # an end the partition never reaches: records 10.. never come
        with pytest.raises(LogReadError, match=r"partition 0 .* no record for 1s at offset 10"):
            reader.read(tp, 10, 15)
    finally:
        consumer.close()


def test_replay_and_verify_over_partitions_larger_than_their_batch(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    cli_env: IngestSettings,
    capfd: pytest.CaptureFixture[str],
) -> None:
    events = Workload(project, 11).build(runs=1300, datasets=3)
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, linger_ms=5)
    for i, event in enumerate(events):  # two partitions of more than 5,000 each, one empty
        producer.send(settings.events_topic, value=event.to_json_bytes(), partition=i % 2)
    producer.flush()
    producer.close()
    assert len(events) > 2 * 5000 + 100

    assert main(["replay", "--topic", settings.events_topic, "--force"]) == 0
    out = capfd.readouterr()
    assert f"replay: {len(events)} records, {len(events)} events applied" in out.out
    assert f"{len(events)}/{len(events)} records (100.0%)" in out.err
    assert main(["verify", "--topic", settings.events_topic, "--project", project]) == 0
    assert "verify: no differences" in capfd.readouterr().err
    nodes = neo4j_driver.execute_query(
        "MATCH (n:Entity {project: $p}) RETURN count(n) AS n", p=project
    ).records[0]["n"]
    assert nodes > 1300
    before = graph_hash(neo4j_driver, project)
    neo4j_driver.execute_query(
        "MATCH (n:Run {project: $p}) WITH n LIMIT 1 SET n.conclusion = 'edited'", p=project
    )
    assert main(["verify", "--topic", settings.events_topic, "--project", project]) == 1
    assert graph_hash(neo4j_driver, project) != before
