"""The log's one order across partitions (append time, ties by partition), and the ownership
screen judging a poll batch in that order whatever order the partitions were polled in."""

from __future__ import annotations

import pytest
from support.log_records import Rec

from provgraph.ingest.log_order import in_log_order
from provgraph.ingest.projection import project_event
from provgraph.ingest.screening import screen_entries
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import RunCompleted, RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.run import RunCompletedPayload

pytestmark = pytest.mark.unit


def test_partitions_merge_by_time_and_keep_their_own_order() -> None:
    records = [Rec(0, 0, 50), Rec(0, 1, 10), Rec(1, 0, 20), Rec(1, 1, 60), Rec(2, 0, 20)]
    ordered = in_log_order(records, lambda r: r)
    assert [(r.partition, r.offset) for r in ordered] == [(1, 0), (2, 0), (0, 0), (0, 1), (1, 1)]


def test_ties_go_to_the_lower_partition_whatever_the_poll_order() -> None:
    records = [Rec(3, 0, 5), Rec(1, 0, 5)]
    assert [r.partition for r in in_log_order(records, lambda r: r)] == [1, 3]


def test_the_screen_judges_a_batch_in_log_order_not_in_poll_order() -> None:
    def started(project: str) -> RunStarted:
        return RunStarted.create(
            project=project,
            producer="https://t/1",
            actor="u",
            payload=RunStartedPayload(run_id="r9"),
        )

    forged = project_event(
        RunCompleted.create(
            project="a",
            producer="https://t/1",
            actor="u",
            payload=RunCompletedPayload(run_id="r9", conclusion="forced"),
        )
    )
    owner = project_event(started("b"))
    # polled partition 0 first: a's record, appended later than b's claim in partition 1
    entries = [(Rec(0, 0, 2000), forged), (Rec(1, 0, 1000), owner)]
    errors = screen_entries(MemoryGraph(), entries)
    assert errors[1] is None
    assert errors[0] is not None and "'b'" in str(errors[0])
