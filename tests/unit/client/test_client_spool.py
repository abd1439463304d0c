"""The spool: durable JSON lines, read back in emit order, resumable after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from client_fakes import metric_event

from provgraph.client import Spool, SpoolLockedError
from provgraph.client.spool import REJECTED_FILE, SpoolRecord


def records(seqs: list[int]) -> list[SpoolRecord]:
    return [SpoolRecord(seq, metric_event(seq % 2, seq)) for seq in seqs]


def test_records_come_back_sorted_by_seq_whatever_the_append_order(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(records([3, 4]))
    spool.append(records([1, 2]))  # a batch that failed after newer events overflowed
    snapshot = spool.snapshot()
    assert [r.seq for r in snapshot.records] == [1, 2, 3, 4]
    assert spool.pending == 4
    spool.close()


def test_lines_are_json_with_seq_and_the_canonical_event(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    [record] = records([7])
    spool.append([record])
    spool.close()
    [line] = (tmp_path / "segment-000000001.jsonl").read_text().splitlines()
    data = json.loads(line)
    assert data["seq"] == 7
    assert json.dumps(data["event"], sort_keys=True, separators=(",", ":")).encode() == (
        record.event.to_json_bytes()
    )


def test_commit_keeps_only_the_unsent_records(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(records([1, 2, 3]))
    snapshot = spool.snapshot()
    spool.commit(snapshot, list(snapshot.records[2:]))
    assert spool.pending == 1
    assert [r.seq for r in spool.snapshot().records] == [3]
    spool.commit(spool.snapshot(), [])
    assert spool.pending == 0
    assert list(tmp_path.glob("segment-*")) == []
    spool.close()


def test_appends_during_a_replay_survive_its_commit(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(records([1]))
    snapshot = spool.snapshot()
    spool.append(records([2]))  # lands in a new segment, not in the snapshot
    spool.commit(snapshot, [])
    assert [r.seq for r in spool.snapshot().records] == [2]
    spool.close()


def test_a_new_spool_on_the_same_directory_sees_what_was_left(tmp_path: Path) -> None:
    first = Spool(tmp_path)
    first.append(records([5, 6]))
    first.close()
    second = Spool(tmp_path)
    assert second.pending == 2
    assert second.max_seq == 6
    assert [r.event.event_id for r in second.snapshot().records] == [
        r.event.event_id for r in first.snapshot().records
    ]
    second.close()


def test_a_torn_line_is_moved_to_rejected_and_the_rest_is_read(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(records([1]))
    spool.close()
    with open(tmp_path / "segment-000000001.jsonl", "a") as out:
        out.write('{"seq": 2, "event": {"event_id"')  # a crash mid-write
    spool = Spool(tmp_path)
    assert [r.seq for r in spool.snapshot().records] == [1]
    rejected = (tmp_path / REJECTED_FILE).read_text().splitlines()
    assert len(rejected) == 1 and "unreadable" in json.loads(rejected[0])["reason"]
    spool.close()


def test_rejected_events_are_kept_with_their_reason(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    [record] = records([1])
    spool.reject([record.event], "422 validation_failed")
    [line] = (tmp_path / REJECTED_FILE).read_text().splitlines()
    data = json.loads(line)
    assert data["reason"] == "422 validation_failed"
    assert data["event"]["event_id"] == str(record.event.event_id)
    spool.close()


def test_one_spool_directory_serves_one_emitter_at_a_time(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    with pytest.raises(SpoolLockedError):
        Spool(tmp_path)
    spool.close()
    Spool(tmp_path).close()
