"""The log's fold with its events and metric series on disk (`SpilledGraph`) hands over the
same graph as the in-memory fold, whole, per project and per part, with a spill buffer many
times smaller than the events; `compare` lists differences part by part within its limit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.projection_workload import Workload

from provgraph.ingest.projection.canonical import PARTS, event_key, part_of
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.spilled_graph import PartFiles, SpilledGraph
from provgraph.ingest.tools.verify import PARTS_AT_ONCE, compare, summary_of
from provgraph.schemas import Event

BUFFER = 50  # items held before a spill: the events are about 70 times more


@pytest.fixture(scope="module")
def events() -> list[Event]:
    """Three projects' runs, metrics, checkpoints, models, deployments and deletes."""
    return [e for p in ("pa", "pb", "pc") for e in Workload(p, 5).build(runs=450, datasets=6)]


@pytest.fixture()
def folds(events: list[Event], tmp_path: Path) -> tuple[MemoryGraph, SpilledGraph]:
    spilled = SpilledGraph(tmp_path, buffer=BUFFER)
    return MemoryGraph().fold(events), spilled.fold(events)  # type: ignore[return-value]


def test_the_spilled_fold_hands_over_the_in_memory_graph(
    folds: tuple[MemoryGraph, SpilledGraph], events: list[Event]
) -> None:
    memory, spilled = folds
    assert not spilled.events and not spilled.series  # kept on disk, not in memory
    assert len(events) > 60 * BUFFER
    assert memory.series and len(memory.events) == len(spilled.applied_ids) == len(events)
    assert spilled.canonical() == memory.canonical()
    assert summary_of(spilled).digest() == memory.canonical().digest()
    for project in ("pa", "pb", "pc"):
        assert summary_of(spilled, project).digest() == memory.canonical(project).digest()
    chosen = [0, 7, PARTS - 1]
    assert spilled.canonical(None, chosen) == memory.canonical(None, chosen)
    assert compare(memory, spilled) == []


def test_it_refuses_to_be_used_as_a_batch_writer(folds: tuple[MemoryGraph, SpilledGraph]) -> None:
    _, spilled = folds
    with pytest.raises(TypeError, match="apply events one by one"):
        spilled.write([])


def test_a_copy_of_an_applied_event_changes_nothing(
    folds: tuple[MemoryGraph, SpilledGraph], events: list[Event]
) -> None:
    _, spilled = folds
    before = summary_of(spilled).digest()
    assert spilled.fold(events[:100]) is spilled
    assert summary_of(spilled).digest() == before


def test_the_spill_holds_at_most_its_buffer_and_reads_back_in_order(tmp_path: Path) -> None:
    files: PartFiles[int] = PartFiles(tmp_path, "items", buffer=10)
    parts = [i % 3 for i in range(95)]
    for i, part in enumerate(parts):
        files.add(part, i)
        assert files.held < 10
    assert [list(files.read(p)) for p in range(3)] == [
        [i for i, p in enumerate(parts) if p == part] for part in range(3)
    ]
    assert list(files.read(5)) == []


def test_close_removes_what_was_spilled(events: list[Event], tmp_path: Path) -> None:
    folder = tmp_path / "not" / "there"  # made when missing
    with SpilledGraph(folder, buffer=BUFFER) as graph:
        graph.fold(events[:500])
        summary_of(graph)
        assert graph.folder.parent == folder and list(graph.folder.iterdir())
    assert list(folder.iterdir()) == []


def test_compare_lists_the_differences_of_every_part_up_to_its_limit(
    folds: tuple[MemoryGraph, SpilledGraph],
) -> None:
    memory, spilled = folds
    dropped = random.Random(3).sample(sorted(memory.events), 60)  # spread over many parts
    for event_id in dropped:
        del memory.events[event_id]
    parts = {part_of(event_key(e)) for e in dropped}
    assert len(parts) > PARTS_AT_ONCE  # more parts than are read at once

    lines = compare(spilled, memory, limit=10_000)
    assert {line for line in lines if line.startswith("missing node")} == {
        f"missing node {event_key(e)}" for e in dropped
    }
    assert all(line.startswith("missing ") for line in lines)

    short = compare(spilled, memory, limit=5)
    assert short[:5] == lines[:5] and len(short) == 6
    assert "more differences, and more in" in short[5] and "parts unread" in short[5]
    last = compare(spilled, memory, limit=len(lines) - 3)  # the last parts read hold the rest
    assert last[-1] == "... and 3 more differences"
