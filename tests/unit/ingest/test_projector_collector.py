"""The cyclic garbage collector while folding: the projector, replay and verify set its
first-generation threshold from the settings, and a fold then collects far less often."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog
from pydantic import ValidationError
from support.projection_workload import Workload

from provgraph.core.collector import collect_less
from provgraph.ingest.projector.batch import parse_records
from provgraph.ingest.projector.loop import Projector
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools import replay as replay_module
from provgraph.ingest.tools.memory_graph import MemoryGraph

pytestmark = pytest.mark.usefixtures("gc_thresholds_kept")


def test_collect_less_sets_the_first_generation_only() -> None:
    gc.set_threshold(700, 11, 12)
    collect_less(25_000)
    assert gc.get_threshold() == (25_000, 11, 12)
    collect_less(0)  # Python's own is kept
    assert gc.get_threshold() == (25_000, 11, 12)
    with pytest.raises(ValueError, match="count of allocations"):
        collect_less(-1)
    with pytest.raises(ValidationError, match="projector_gc_threshold"):
        IngestSettings(projector_gc_threshold=-5)


def test_the_projector_replay_and_verify_set_it_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gc.set_threshold(700, 10, 10)
    settings = IngestSettings(projector_gc_threshold=12_345)
    Projector(settings, FakeEventSource(FakeLog()), MemoryGraph(), FakeDeadLetters()).close()
    assert gc.get_threshold()[0] == 12_345
    # verify folds through `fold_log`: the threshold is set before the first batch is read.
    gc.set_threshold(700, 10, 10)
    seen: list[int] = []

    def log(*_: Any, **__: Any) -> Iterator[list[Any]]:
        seen.append(gc.get_threshold()[0])
        return iter(())

    monkeypatch.setattr(replay_module, "read_log_in_order", log)
    fold = replay_module.fold_log(settings.model_copy(update={"projector_gc_threshold": 4321}))
    assert list(fold) == []
    assert seen == [4321]
    # A setting of 0 leaves the process's own.
    gc.set_threshold(700, 10, 10)
    Projector(
        IngestSettings(projector_gc_threshold=0),
        FakeEventSource(FakeLog()),
        MemoryGraph(),
        FakeDeadLetters(),
    ).close()
    assert gc.get_threshold()[0] == 700


def _collections_while_folding(threshold: int, records: list[Any]) -> int:
    counted = [0]

    def count(phase: str, _info: dict[str, Any]) -> None:
        counted[0] += phase == "start"

    gc.collect()
    gc.set_threshold(threshold, 10, 10)
    gc.callbacks.append(count)
    try:
        parsed = parse_records(records)
    finally:
        gc.callbacks.remove(count)
    assert not parsed.poison and len(parsed.entries) == len(records)
    return counted[0]


def test_a_fold_collects_far_less_often_with_the_default_setting() -> None:
    log = FakeLog()
    for project in ("p", "q", "r", "s"):
        for event in Workload(project, 7).build(runs=25, datasets=5):
            log.append(0, event.kafka_key(), event.to_json_bytes())
    records = list(log.partitions[0])
    assert len(records) >= 400
    default = IngestSettings().projector_gc_threshold
    python, ours = (_collections_while_folding(t, records) for t in (700, default))
    assert python >= 10, "Python's own collects every few events"
    assert ours * 5 <= python
