"""The projector's health verdict (`services status`) and its quiet logging, without I/O."""

from __future__ import annotations

import logging

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from provgraph.ingest.projector.progress import (
    GroupView,
    PartitionProgress,
    client_id,
    group_view,
    progress_stamp,
    stamp_time,
    verdict,
)
from provgraph.ingest.projector.run import QuietRepeats

PID, STARTED, NOW, AFTER = 4242, 1000.0, 2000.0, 30.0


def view(*partitions: PartitionProgress, members: tuple[str, ...] = (client_id(PID),)) -> GroupView:
    return GroupView("provgraph-projector", "Stable", members, partitions)


def judge(group: GroupView, started_at: float = STARTED) -> str | None:
    return verdict(group, pid=PID, started_at=started_at, now=NOW, stalled_after_s=AFTER)


def test_a_stamp_says_when_the_commit_was_made_and_other_metadata_says_nothing() -> None:
    assert stamp_time(progress_stamp(1234.5678)) == 1234.568
    for other in ("", None, "not json", '{"other": 1}', '{"progress_at": "soon"}', "[1]"):
        assert stamp_time(other) is None


def test_caught_up_is_healthy_however_old_the_last_commit() -> None:
    assert judge(view(PartitionProgress(0, 0, 10.0), PartitionProgress(1, 0, None))) is None


def test_pending_events_with_recent_progress_are_healthy() -> None:
    assert judge(view(PartitionProgress(0, 500, NOW - AFTER + 1))) is None


def test_pending_events_and_no_progress_for_too_long_is_degraded_with_the_numbers() -> None:
    group = view(
        PartitionProgress(0, 7, NOW - 45),
        PartitionProgress(1, 0, NOW - 500),  # caught up: not part of the reason
        PartitionProgress(2, 5, None),  # never committed: stalled since the process started
    )
    assert judge(group) == "12 events pending (partitions 0, 2), no progress for 45s"


def test_a_young_process_gets_its_grace_for_pending_events_and_for_joining() -> None:
    young = NOW - AFTER + 5
    assert judge(view(PartitionProgress(0, 9, NOW - 600)), started_at=young) is None
    assert judge(view(PartitionProgress(0, 0, None), members=()), started_at=young) is None


def test_a_process_that_is_not_a_member_of_its_group_is_degraded() -> None:
    others = view(PartitionProgress(0, 0, NOW), members=(client_id(PID + 1),))
    assert judge(others) == (
        f"pid {PID} is not a member of consumer group provgraph-projector (Stable, 1 other members)"
    )
    alone = GroupView("g", "Empty", (), ())
    assert judge(alone) == f"pid {PID} is not a member of consumer group g (Empty, no members)"


def test_the_group_view_counts_pending_events_from_the_committed_offsets() -> None:
    tp = [TopicPartition("events", p) for p in range(3)]
    committed = {
        tp[0]: OffsetAndMetadata(8, progress_stamp(1500.0), -1),
        tp[1]: OffsetAndMetadata(3, "", -1),  # committed by something that does not stamp
    }
    described = {"group_state": "Stable", "members": [{"client_id": client_id(PID)}]}
    group = group_view("g", described, committed, {tp[2]: 4, tp[0]: 10, tp[1]: 3})
    assert group == GroupView(
        "g",
        "Stable",
        (client_id(PID),),
        (
            PartitionProgress(0, 2, 1500.0),
            PartitionProgress(1, 0, None),
            PartitionProgress(2, 4, None),
        ),
    )


def record(name: str, msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, None)


def test_repeated_kafka_messages_are_let_through_once_per_interval() -> None:
    quiet = QuietRepeats("kafka", every_s=3600)
    same = [
        record("kafka.net", "Connection failed: %s", "111 ECONNREFUSED"),
        record("kafka.net", "Connection failed: %s", "110 ETIMEDOUT"),
        record("kafka.net", "Task <Task object at 0x7ff3c5b4da50> ran for 0.182s"),
        record("kafka.net", "Task <Task object at 0x7f24bcdc9990> ran for 0.163s"),
    ]
    assert [quiet.filter(r) for r in same] == [True, False, True, False]
    assert quiet.filter(record("kafka.coordinator", "Connection failed: %s", "x"))  # other logger
    assert all(quiet.filter(record("provgraph.ingest.projector", "Kafka error")) for _ in range(3))
    over = QuietRepeats("kafka", every_s=0)  # the interval always over: shown every time
    assert over.filter(same[0]) and over.filter(same[1])
