"""The pure parts of a resumable replay: where it starts, and its progress line."""

from __future__ import annotations

import io

from provgraph.ingest.tools.replay import Progress, Start, progress_key

SPANS = {0: (0, 12_000), 1: (100, 9_100), 2: (0, 0)}  # partition 1 begins after retention


def test_without_progress_every_partition_starts_at_its_beginning() -> None:
    start = Start.of(SPANS, {})
    assert start.positions == {0: 0, 1: 100, 2: 0}
    assert (start.done, start.total) == (0, 21_000)


def test_stored_progress_is_the_last_offset_applied_so_the_next_one_is_read() -> None:
    start = Start.of(SPANS, {0: 4_999, 1: 5_099})
    assert start.positions == {0: 5_000, 1: 5_100, 2: 0}
    assert start.done == 10_000
    finished = Start.of(SPANS, {0: 11_999, 1: 9_099})
    assert finished.done == finished.total


def test_progress_before_the_log_beginning_counts_nothing_replayed() -> None:
    assert Start.of(SPANS, {1: 20}).positions[1] == 100


def test_the_progress_line_starts_at_the_resumed_position_and_rates_only_this_run() -> None:
    out = io.StringIO()
    progress = Progress(40_000, out, done=30_000)
    progress.started -= 10.0  # as if this run had read for ten seconds
    progress.advance(5_000)
    line = out.getvalue()
    assert "35000/40000 records ( 87.5%)" in line
    rate = float(line.split(" records (")[1].split(") ")[1].split(" events/s")[0].replace(",", ""))
    assert 400 <= rate <= 500, line  # 5,000 in ~10 s, not 35,000
    assert line.rstrip().endswith("s") and "ETA 1" in line  # 5,000 left at ~500/s: ~10 s


def test_the_progress_key_is_no_kafka_topic_name() -> None:
    assert progress_key("provgraph.events") == "replay:provgraph.events"
    assert ":" in progress_key("t")  # Kafka topic names allow only [a-zA-Z0-9._-]
