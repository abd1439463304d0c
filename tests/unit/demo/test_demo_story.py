"""The demo story holds the whole lifecycle the README promises, and is project-scoped."""

from __future__ import annotations

from collections import Counter

from provgraph.cli.demo_story import PROJECT, demo_events


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
