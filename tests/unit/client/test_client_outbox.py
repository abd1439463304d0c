"""The outbox: seqs, journal writes (at emit or just before sending), batches, acknowledgements."""

from __future__ import annotations

import threading
from pathlib import Path

from client_fakes import metric_event

from provgraph.client.outbox import Batch, Outbox
from provgraph.client.spool import Spool
from provgraph.schemas import Event


def put(outbox: Outbox, count: int) -> list[Event]:
    events = [metric_event(step % 2, step) for step in range(count)]
    for event in events:
        outbox.put(event, event.to_json_bytes())
    return events


def drain(outbox: Outbox, limit: int = 100) -> list[Batch]:
    batches = []
    while batch := outbox.take(limit):
        batches.append(batch)
        outbox.done(batch)
    return batches


def seqs(batches: list[Batch]) -> list[int]:
    """The seqs the batches cover (each batch's seqs end at its last_seq)."""
    return [s for b in batches for s in range(b.last_seq - b.lines + 1, b.last_seq + 1)]


def journal_lines(directory: Path) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in directory.glob("segment-*"))


def test_a_durable_put_is_in_the_journal_when_it_returns(tmp_path: Path) -> None:
    outbox = Outbox(Spool(tmp_path))
    put(outbox, 3)
    assert journal_lines(tmp_path) == 3
    assert outbox.pending == outbox.spool.pending == 3


def test_a_memory_put_is_written_just_before_it_is_sent(tmp_path: Path) -> None:
    outbox = Outbox(Spool(tmp_path), durable=False)
    put(outbox, 3)
    assert (journal_lines(tmp_path), outbox.pending) == (0, 3)
    batch = outbox.take(2)
    assert batch is not None and seqs([batch]) == [1, 2]
    assert journal_lines(tmp_path) == 2
    outbox.write_pending()
    assert journal_lines(tmp_path) == 3


def test_take_gives_the_same_batch_until_it_is_done(tmp_path: Path) -> None:
    outbox = Outbox(Spool(tmp_path))
    events = put(outbox, 5)
    first = outbox.take(3)
    assert first is not None and outbox.take(3) == first
    assert first.events == events[:3]
    outbox.done(first)
    rest = outbox.take(3)
    assert rest is not None and rest.events == events[3:]
    assert outbox.pending == 2 and outbox.spool.acked == 3


def test_events_beyond_max_queue_are_read_back_from_the_journal_in_order(tmp_path: Path) -> None:
    for durable in (True, False):
        outbox = Outbox(Spool(tmp_path / str(durable)), durable=durable, max_queue=3)
        events = put(outbox, 10)
        batches = drain(outbox)
        assert [e for b in batches for e in b.events] == events
        assert seqs(batches) == list(range(1, 11))
        assert outbox.pending == 0


def test_what_a_previous_process_left_goes_first_and_seqs_go_on(tmp_path: Path) -> None:
    earlier = Outbox(Spool(tmp_path))
    left = put(earlier, 4)
    first = earlier.take(1)
    assert first is not None
    earlier.done(first)
    earlier.spool.close()
    outbox = Outbox(Spool(tmp_path), max_queue=100)
    assert outbox.pending == 3
    new = put(outbox, 2)
    batches = drain(outbox)
    assert [e for b in batches for e in b.events] == left[1:] + new
    assert seqs(batches) == [2, 3, 4, 5, 6]


def test_put_wakes_the_sender_for_the_first_event_and_each_full_batch(tmp_path: Path) -> None:
    wake = threading.Event()
    outbox = Outbox(Spool(tmp_path), wake=wake, wake_every=4)
    put(outbox, 1)
    assert wake.is_set()
    wake.clear()
    put(outbox, 2)
    assert not wake.is_set()
    put(outbox, 1)
    assert wake.is_set()
