"""The demo story holds the whole lifecycle the README promises, and is project-scoped."""

from __future__ import annotations

import math
import uuid
from collections import Counter

from provgraph.cli.demo_ids import NAMESPACE
from provgraph.cli.demo_story import PRETRAIN, PROJECT, demo_events
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas.storage import series_bucket, series_id, series_points


def test_story_covers_the_promised_lifecycle() -> None:
    events = demo_events()
    kinds = Counter(event.event_type for event in events)
    assert kinds["run.resumed"] == 3  # the pretraining's node failure, two in the sweep
    assert kinds["model.version.evaluated"] == 4  # two versions on two evaluation sets
    assert kinds["deployment.created"] == 1
    assert kinds["model.version.registered"] == 3
    assert kinds["run.failed"] == 2
    assert kinds["environment.snapshot.recorded"] == 2
    pretrain = next(e for e in events if e.event_type == "run.started")
    roles = sorted(i.role for i in pretrain.payload.inputs)  # type: ignore[attr-defined]
    assert roles == ["train", "validation"]
    finetune = [e for e in events if e.event_type == "run.started"][1]
    assert finetune.payload.base_model  # type: ignore[attr-defined]
    cleaned = [i.dataset_version for i in finetune.payload.inputs]  # type: ignore[attr-defined]
    assert cleaned == [f"dataset:{PROJECT}/instruct@v1-clean"]


def test_story_is_deterministic_and_scoped_by_project() -> None:
    first, again, other = demo_events(), demo_events(), demo_events("someone-else")
    assert [e.to_json_bytes() for e in first] == [e.to_json_bytes() for e in again]
    assert not {e.event_id for e in first} & {e.event_id for e in other}
    assert not {e.subject for e in first} & {e.subject for e in other}
    assert all(e.project == "someone-else" for e in other)
    assert all(PROJECT not in e.to_json_bytes().decode() for e in other)


def test_the_sweep_gives_every_practice_question_an_answer() -> None:
    events = demo_events()
    started = {e.payload.run_id: e for e in events if e.event_type == "run.started"}  # type: ignore[attr-defined]
    ended = {
        e.payload.run_id  # type: ignore[attr-defined]
        for e in events
        if e.event_type in ("run.completed", "run.failed", "run.aborted")
    }
    assert set(started) - ended == {"demo-sft-005"}  # the stalled run
    saved = [e for e in events if e.event_type == "checkpoint.saved"]
    assert sum(1 for e in saved if e.payload.save_seconds) >= 5  # type: ignore[attr-defined]
    completed = [e for e in events if e.event_type in ("run.completed", "run.failed")]
    assert any(e.payload.conclusion is None for e in completed)  # type: ignore[attr-defined]


def test_the_pretraining_logs_a_loss_curve_across_its_resume() -> None:
    events = demo_events(with_sweep=False)
    run, checkpoints = f"run:{PRETRAIN}", f"checkpoint:{PRETRAIN}/"
    times = [e.occurred_at for e in events]
    assert times == sorted(times)
    # Each batch in its place: before the first checkpoint, before the resume, after it.
    kinds = [e.event_type for e in events if e.subject == run or e.subject.startswith(checkpoints)]
    logged, saved, resumed = "run.metrics.logged", "checkpoint.saved", "run.resumed"
    assert kinds == [
        "run.started", logged, saved, logged, resumed, logged, saved, "run.completed"
    ]  # fmt: skip
    batches = [e.payload for e in events if e.event_type == logged and e.subject == run]
    steps = sorted({p.step for b in batches for p in b.points if p.name == "train/loss"})  # type: ignore[attr-defined]
    assert steps == list(range(0, 2001, 50))
    graph = MemoryGraph().fold(events)
    train = dict(series_points(graph.series[series_id(run, "train/loss")]))
    val = series_points(graph.series[series_id(run, "val/loss")])
    assert len(train) == len({series_bucket(step) for step in steps}) < len(steps)
    assert (train[0], max(train)) == (10.8, 2000)
    # The checkpoints' loss and the final perplexity agree with the curve.
    metrics = {e.payload.step: e.payload.metrics for e in events if e.event_type == saved}  # type: ignore[attr-defined]
    assert (train[1000], train[2000]) == (metrics[1000]["train/loss"], metrics[2000]["train/loss"])
    assert val[-1] == (2000, round(math.log(14.2), 2))
    # The steps the node failure lost were logged again after the resume: the later values.
    assert (train[1050], train[1100]) == (2.84, 2.81)


def test_every_event_but_the_metric_batches_keeps_the_id_of_its_place_in_the_story() -> None:
    # `provgraph demo` tops up a story loaded before: the events already there keep their ids.
    for project in (PROJECT, "someone-else"):
        events = demo_events(project)
        batches = [e for e in events if e.event_type == "run.metrics.logged"]
        placed = [e for e in events if e not in batches or not e.subject.endswith(PRETRAIN)]
        ids = [e.event_id for e in placed]
        assert ids == [uuid.uuid5(NAMESPACE, f"{project}-{i}") for i in range(len(placed))]
