"""The spool: an append-only journal read forward from the acknowledged seq, resumable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from client_fakes import metric_event

from provgraph.client import Spool, SpoolLockedError
from provgraph.client.segments import ACK_FILE, REJECTED_FILE, SpoolRecord


def records(seqs: list[int] | range) -> list[SpoolRecord]:
    out = []
    for seq in seqs:
        event = metric_event(seq % 2, seq)
        out.append(SpoolRecord(seq, event, event.to_json_bytes()))
    return out


def write(spool: Spool, written: list[SpoolRecord]) -> None:
    spool.write(written[0].seq, [r.data for r in written])


def segment_lines(directory: Path) -> list[bytes]:
    return [
        line for p in sorted(directory.glob("segment-*")) for line in p.read_bytes().splitlines()
    ]


def test_written_records_are_read_back_in_order_within_bounds(tmp_path: Path) -> None:
    spool = Spool(tmp_path, fsync_interval_s=None)
    written = records(range(1, 11))
    write(spool, written)
    assert spool.pending == 10 and spool.max_seq == 10
    assert [r.seq for r in spool.read(1, None, 4)] == [1, 2, 3, 4]
    assert [r.seq for r in spool.read(3, 6, 100)] == [3, 4, 5]
    assert [r.seq for r in spool.read(9, None, 100)] == [9, 10]
    assert spool.read(10, None, 100) == written[9:]  # the same event, the same bytes
    spool.close()


def test_lines_are_json_with_seq_and_the_canonical_event(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    [record] = records([7])
    write(spool, [record])
    [line] = segment_lines(tmp_path)  # there without a sync or a close: os.write returned
    data = json.loads(line)
    assert data["seq"] == 7
    assert json.dumps(data["event"], sort_keys=True, separators=(",", ":")).encode() == (
        record.event.to_json_bytes()
    )
    spool.close()


def test_an_ack_is_kept_and_wholly_acked_segments_are_deleted(tmp_path: Path) -> None:
    spool = Spool(tmp_path, segment_bytes=1)  # one record per segment
    write(spool, records([1]))
    write(spool, records([2]))
    write(spool, records([3]))
    assert len(list(tmp_path.glob("segment-*"))) == 3
    spool.ack(2, 2)
    assert spool.pending == 1 and spool.acked == 2
    assert [r.seq for r in spool.read(3, None, 10)] == [3]
    assert len(list(tmp_path.glob("segment-*"))) == 1
    assert int((tmp_path / ACK_FILE).read_text().split()[-1]) == 2
    spool.close()


def test_a_new_spool_on_the_directory_resumes_after_the_ack(tmp_path: Path) -> None:
    first = Spool(tmp_path)
    write(first, records(range(1, 6)))
    first.ack(3, 3)
    first.close()
    second = Spool(tmp_path)
    assert (second.pending, second.acked, second.max_seq) == (2, 3, 5)
    assert [r.seq for r in second.read(second.acked + 1, None, 10)] == [4, 5]
    second.close()


def test_a_spool_fully_delivered_leaves_an_empty_directory(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "pid-1")
    write(spool, records([1, 2]))
    spool.ack(2, 2)
    spool.close(remove=True)
    assert not (tmp_path / "pid-1").exists()
    with pytest.raises(FileNotFoundError):
        Spool(tmp_path / "pid-1", create=False)


def test_a_rejected_file_keeps_its_directory(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "pid-1")
    [record] = records([1])
    spool.reject([record.event], "422 validation_failed")
    spool.close(remove=True)
    [line] = (tmp_path / "pid-1" / REJECTED_FILE).read_text().splitlines()
    data = json.loads(line)
    assert data["reason"] == "422 validation_failed"
    assert data["event"]["event_id"] == str(record.event.event_id)


def test_close_with_events_pending_keeps_them(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "pid-1")
    write(spool, records([1, 2]))
    spool.close(remove=True)
    again = Spool(tmp_path / "pid-1", create=False)
    assert again.pending == 2
    again.close()


def test_a_torn_last_line_is_moved_to_rejected_and_the_rest_is_read(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    write(spool, records([1]))
    spool.close()
    [segment] = tmp_path.glob("segment-*")
    with open(segment, "ab") as out:
        out.write(b'{"seq":2,"event":{"event_id"')  # a crash mid-write
    spool = Spool(tmp_path)
    assert spool.pending == 2
    assert [r.seq for r in spool.read(1, None, 10)] == [1]
    spool.ack(1, 1)
    assert spool.read(2, None, 10) == []
    assert spool.pending == 0
    rejected = (tmp_path / REJECTED_FILE).read_text().splitlines()
    assert len(rejected) == 1 and "unreadable" in json.loads(rejected[0])["reason"]
    spool.close()


def test_an_unreadable_line_is_moved_aside_once_it_comes_first(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    write(spool, records([1]))
    spool.close()
    [segment] = tmp_path.glob("segment-*")
    with open(segment, "ab") as out:
        out.write(b'{"seq":2,"event":{"event_type":"no.such.type"}}\n')
    spool = Spool(tmp_path)
    write(spool, records([3]))
    assert [r.seq for r in spool.read(1, None, 10)] == [1]  # stops before the bad line
    assert [r.seq for r in spool.read(1, None, 10)] == [1]  # read again: not moved twice
    spool.ack(1, 1)
    assert [r.seq for r in spool.read(2, None, 10)] == [3]
    assert len((tmp_path / REJECTED_FILE).read_text().splitlines()) == 1
    assert spool.pending == 1
    spool.close()


def test_the_ack_file_stays_small(tmp_path: Path) -> None:
    spool = Spool(tmp_path, fsync_interval_s=None)
    write(spool, records(range(1, 3)))
    for _ in range(20_000):
        spool.ack(1, 0)
    assert (tmp_path / ACK_FILE).stat().st_size < 100_000
    spool.close()
    assert Spool(tmp_path).acked == 1


def test_one_spool_directory_serves_one_process_at_a_time(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    with pytest.raises(SpoolLockedError):
        Spool(tmp_path)
    spool.close()
    Spool(tmp_path).close()


def test_a_journal_out_of_seq_order_is_sorted_once_when_opened(tmp_path: Path) -> None:
    # Spools of earlier SDK versions put a failed batch after newer events, maybe twice.
    by_seq = {r.seq: r for r in records(range(1, 7))}
    for number, seqs in ((1, [5, 6]), (3, [3, 4, 5]), (4, [1, 2])):
        lines = b"".join(b'{"seq":%d,"event":%s}\n' % (s, by_seq[s].data) for s in seqs)
        (tmp_path / f"segment-{number:09d}.jsonl").write_bytes(lines)
    spool = Spool(tmp_path)
    assert spool.pending == 6 and spool.max_seq == 6
    assert [r.seq for r in spool.read(1, None, 100)] == [1, 2, 3, 4, 5, 6]
    assert len(list(tmp_path.glob("segment-*"))) == 1
    spool.close()


def test_segments_are_never_numbered_twice(tmp_path: Path) -> None:
    spool = Spool(tmp_path, segment_bytes=1)
    write(spool, records([1]))
    spool.ack(1, 1)  # the only segment goes
    assert list(tmp_path.glob("segment-*")) == []
    assert spool.read(2, None, 10) == []
    write(spool, records([2]))
    assert [p.name for p in tmp_path.glob("segment-*")] == ["segment-000000002.jsonl"]
    assert [r.seq for r in spool.read(2, None, 10)] == [2]
    spool.close()
