"""The demo story holds the whole lifecycle the README promises, and is project-scoped."""

from __future__ import annotations

import math
import uuid
from collections import Counter

from provgraph.cli.demo_ids import NAMESPACE, PROTOTYPE
from provgraph.cli.demo_story import FINETUNE, PRETRAIN, PROJECT, demo_events
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas.records import RecordKind
from provgraph.schemas.storage import series_bucket, series_id, series_points


def test_story_covers_the_promised_lifecycle() -> None:
    events = demo_events()
    kinds = Counter(event.event_type for event in events)
    assert kinds["run.resumed"] == 3  # the pretraining's node failure, two in the sweep
    assert kinds["model.version.evaluated"] == 4  # two versions on two evaluation sets
    # the pretraining's two checkpoints on eval-suite v1, registering no model version
    evaluated = [e.payload for e in events if e.event_type == "checkpoint.evaluated"]
    assert [p.checkpoint for p in evaluated] == [  # type: ignore[attr-defined]
        f"checkpoint:{PRETRAIN}/1000",
        f"checkpoint:{PRETRAIN}/2000",
    ]
    assert {p.dataset_versions for p in evaluated} == {  # type: ignore[attr-defined]
        (f"dataset:{PROJECT}/eval-suite@v1",)
    }
    assert kinds["deployment.created"] == 1
    assert kinds["model.version.registered"] == 4  # base, chat 1.0.0 and 1.1.0, the prototype
    assert kinds["run.failed"] == 2
    assert kinds["environment.snapshot.recorded"] == 2
    started = {e.subject: e for e in events if e.event_type == "run.started"}
    pretrain = started[f"run:{PRETRAIN}"]
    roles = sorted(i.role for i in pretrain.payload.inputs)  # type: ignore[attr-defined]
    assert roles == ["train", "validation"]
    finetune = started[f"run:{FINETUNE}"]
    assert finetune.payload.base_model  # type: ignore[attr-defined]
    cleaned = [i.dataset_version for i in finetune.payload.inputs]  # type: ignore[attr-defined]
    assert cleaned == [f"dataset:{PROJECT}/instruct@v1-clean"]


def test_story_has_a_licensed_source_a_taken_down_one_and_an_incomplete_run() -> None:
    events = demo_events()
    sources = {
        e.subject: e.payload.source  # type: ignore[attr-defined]
        for e in events
        if e.event_type == "dataset.version.created" and e.payload.source  # type: ignore[attr-defined]
    }
    web, forum = f"dataset:{PROJECT}/web-corpus@v1", f"dataset:{PROJECT}/forum-dump@v1"
    assert set(sources) == {web, forum}
    assert (sources[web].licence, sources[web].compliance_note) == (
        "CC-BY-4.0",
        "robots.txt honoured",
    )
    assert (sources[forum].licence, sources[forum].compliance_note) == (None, None)
    deleted = [e for e in events if e.event_type == "entity.deleted"]
    assert [(e.subject, e.payload.reason) for e in deleted] == [  # type: ignore[attr-defined]
        (forum, "takedown request from the forum's operator")
    ]
    # The prototype, trained on the dump, is retired after the takedown, for it.
    proto = next(e for e in events if e.subject == f"run:{PROTOTYPE}")
    assert [i.dataset_version for i in proto.payload.inputs] == [forum]  # type: ignore[attr-defined]
    assert (proto.payload.code, proto.payload.environment, proto.payload.experiment) == (None,) * 3  # type: ignore[attr-defined]
    changed = [e for e in events if e.event_type == "model.version.status.changed"]
    retired = [e for e in changed if e.payload.to_status == "retired"]  # type: ignore[attr-defined]
    assert [e.subject for e in retired] == [f"model:{PROJECT}/chat-proto@0.1.0"]
    assert retired[0].occurred_at > deleted[0].occurred_at > proto.occurred_at
    assert all(e.occurred_at > events[-4].occurred_at for e in deleted)  # after the whole story
    # Then, last of all, the team's conventions: naming rules and a storage root, enforced by
    # nobody, no element of a record required (so nothing of the story is refused by them).
    assert events[-1].event_type == "project.policy.set"
    assert events[-1].payload.names.run == "{experiment}-r{run_number}"  # type: ignore[attr-defined]
    assert not any(events[-1].payload.required.of(k) for k in RecordKind)  # type: ignore[attr-defined]
    assert not (events[-1].payload.require_names or events[-1].payload.require_places)  # type: ignore[attr-defined]
    # The lineage story alone has neither.
    alone = {e.subject for e in demo_events(with_sweep=False)}
    assert forum not in alone and f"run:{PROTOTYPE}" not in alone


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
    # The prototype, its takedown, the pretraining's checkpoint evaluations, the scale-up and
    # the conventions came later, with keys of their own (their part, their place).
    for project in (PROJECT, "someone-else"):
        events = demo_events(project)
        batches = [e for e in events if e.event_type == "run.metrics.logged"]
        parts = {
            uuid.uuid5(NAMESPACE, f"{project}-{part}-{n}"): (part, n)
            for part, count in (
                ("prototype", 5),
                ("ckpt-evals", 2),
                ("scale", 4),
                ("takedown", 2),
                ("conventions", 1),
            )
            for n in range(count)
        }
        later = [parts[e.event_id] for e in events if e.event_id in parts]
        assert later == [
            *(("prototype", n) for n in range(5)),
            ("ckpt-evals", 0),
            ("ckpt-evals", 1),
            *(("scale", n) for n in range(4)),
            ("takedown", 0),
            ("takedown", 1),
            ("conventions", 0),
        ]
        placed = [
            e
            for e in events
            if (e not in batches or not e.subject.endswith(PRETRAIN)) and e.event_id not in parts
        ]
        ids = [e.event_id for e in placed]
        assert ids == [uuid.uuid5(NAMESPACE, f"{project}-{i}") for i in range(len(placed))]
