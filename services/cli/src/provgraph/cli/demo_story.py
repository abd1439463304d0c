"""The demo lineage story, as contract events: built from data alone, identical on every run.

A pretraining run on two dataset versions is interrupted and resumed from a checkpoint; its
model is fine-tuned on a cleaned dataset version, evaluated, registered and deployed. Then a
fine-tuning sweep (demo_sweep.py) gives the team's questions (compare, best, digest, ...) their
answers. Before all that, a prototype was trained on a scraped forum dump, recorded without its
code or environment; after it, the forum's operator asked for the dump to be taken down and the
prototype was retired (a compliance report has both a licensed source and a taken-down one).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.cli.demo_ids import (
    DEPLOYED_MODEL,
    EVALUATIONS,
    FINETUNE,
    NAMESPACE,
    PRETRAIN,
    PROJECT,
    PROTOTYPE,
    RETIRED_MODEL,
    RUNS,
    SHA,
    ckpt,
    ds,
    evaluation_id,
    run_id,
)
from provgraph.cli.demo_scale import scale_up_story
from provgraph.cli.demo_sweep import Timed, run_started, sweep_runs, sweep_setup
from provgraph.schemas import REGISTRY, Event, parse_event

__all__ = ["DEPLOYED_MODEL", "FINETUNE", "PRETRAIN", "PROJECT", "demo_events"]

PRODUCER = "https://provgraph.dev/demo/0.1.0"
_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
_GAP_MINUTES = 10  # between two steps of the story, unless a step says otherwise
_SHA = SHA
_ds = ds
_ckpt = ckpt


def _versions() -> list[tuple[str, dict[str, Any]]]:
    web_v1 = {
        "name": "web-corpus",
        "version": "v1",
        "storage_uri": "s3://demo/web-corpus/v1/",
        "source": {
            "uri": "https://example.org/crawl/2025-12/",
            "obtained_by": "crawl",
            "licence": "CC-BY-4.0",
            "compliance_note": "robots.txt honoured",
        },
        "checksum": _SHA,
        "record_count": 1_000_000,
    }
    web_v2 = {
        "name": "web-corpus",
        "version": "v2",
        "storage_uri": "s3://demo/web-corpus/v2/",
        "change_note": "near-duplicate removal at threshold 0.8",
        "previous_version": "v1",
        "derived_from": [{"dataset_version": _ds("web-corpus", "v1"), "transform": "dedup"}],
        "cleaning_rules": [{"kind": "dedup", "name": "minhash", "params": {"threshold": 0.8}}],
        "split": {"train": {"ratio": 0.98}, "validation": {"ratio": 0.02}},
        "quality_gates": {"dedup_rate": 0.12, "checks": [{"name": "no-empty", "passed": True}]},
        "checksum": _SHA,
        "record_count": 880_000,
    }
    heldout = {
        "name": "heldout",
        "version": "v1",
        "storage_uri": "s3://demo/heldout/v1/",
        "checksum": _SHA,
        "record_count": 10_000,
    }
    instruct = {
        "name": "instruct",
        "version": "v1",
        "storage_uri": "s3://demo/instruct/v1/",
        "checksum": _SHA,
        "record_count": 50_000,
    }
    instruct_clean = {
        "name": "instruct",
        "version": "v1-clean",
        "storage_uri": "s3://demo/instruct/v1-clean/",
        "change_note": "PII filtered, unicode normalised",
        "previous_version": "v1",
        "derived_from": [{"dataset_version": _ds("instruct", "v1"), "transform": "clean"}],
        "cleaning_rules": [
            {"kind": "filter", "name": "pii-scrub", "params": {"entities": ["email", "phone"]}},
            {"kind": "normalize", "name": "unicode-nfc", "params": {}},
        ],
        "checksum": _SHA,
        "record_count": 48_500,
    }
    evalset = {
        "name": "eval-suite",
        "version": "v1",
        "storage_uri": "s3://demo/eval-suite/v1/",
        "checksum": _SHA,
        "record_count": 2_000,
    }
    return [
        ("dataset.version.created", p)
        for p in (web_v1, web_v2, heldout, instruct, instruct_clean, evalset)
    ]


def _pretrain() -> list[tuple[str, dict[str, Any]]]:
    run = {"run_id": PRETRAIN}
    params = {"lr": 3e-4, "batch_size": 512, "epochs": 1}
    inputs = [
        {"dataset_version": _ds("web-corpus", "v2"), "role": "train"},
        {"dataset_version": _ds("heldout", "v1"), "role": "validation"},
    ]
    return [
        run_started(PRETRAIN, "exp-001", 1, "pretrain-1b", params, commit="4f2a9c1", inputs=inputs),
        (
            "checkpoint.saved",
            {
                **run,
                "step": 1000,
                "epoch": 0,
                "uri": "s3://demo/ckpt/pt/1000/",
                "checksum": _SHA,
                "size_bytes": 2_000_000_000,
                "metrics": {"train/loss": 2.9},
            },
        ),
        (
            "run.resumed",
            {
                **run,
                "from_checkpoint": _ckpt(PRETRAIN, 1000),
                "interruption_cause": "node failure",
                "steps_lost": 120,
                "resumed_at_step": 1000,
            },
        ),
        (
            "checkpoint.saved",
            {
                **run,
                "step": 2000,
                "epoch": 0,
                "uri": "s3://demo/ckpt/pt/2000/",
                "checksum": _SHA,
                "size_bytes": 2_000_000_000,
                "metrics": {"train/loss": 2.4},
            },
        ),
        (
            "run.completed",
            {
                **run,
                "conclusion": "loss converged; base model ready",
                "final_metrics": {"val/ppl": 14.2},
                "final_step": 2000,
            },
        ),
        (
            "model.version.registered",
            {
                "name": "base-1b",
                "version": "1.0.0",
                "produced_by_run": f"run:{PRETRAIN}",
                "checkpoint": _ckpt(PRETRAIN, 2000),
                "uri": "s3://demo/models/base-1b/1.0.0/",
                "checksum": _SHA,
                "fit_for": ["fine-tuning"],
            },
        ),
    ]


# The pretraining's logged metrics: train/loss every 50 steps, val/loss every 250. A node failed
# at step 1120: steps 1050 and 1100 were logged, lost with it, and logged again after the resume
# from the checkpoint at step 1000 (the run keeps the later values).
_TRAIN_LOSS = (
    10.8, 7.57, 6.24, 5.48, 4.98, 4.62, 4.35, 4.06, 3.88, 3.74, 3.63,  # steps 0..500
    3.52, 3.44, 3.28, 3.21, 3.16, 3.11, 3.06, 3.02, 2.99, 2.9,  # ..1000
    2.84, 2.81, 2.79, 2.77, 2.75, 2.65, 2.63, 2.62, 2.61, 2.6,  # ..1500
    2.59, 2.58, 2.49, 2.48, 2.47, 2.47, 2.47, 2.46, 2.37, 2.4,  # ..2000
)  # fmt: skip
_LOST = ((1050, 2.82), (1100, 2.79))
_VAL_LOSS = (4.85, 3.87, 3.42, 3.15, 2.97, 2.83, 2.73, 2.65)  # steps 250, 500, ..., 2000


def _pretrain_metrics() -> list[tuple[int, dict[str, Any]]]:
    """The pretraining's `run.metrics.logged` batches, each at minutes after its start: up to
    the checkpoint at step 1000, the steps the node failure lost, and after the resume."""
    train = [(50 * i, loss) for i, loss in enumerate(_TRAIN_LOSS)]
    val = [(250 * (i + 1), loss) for i, loss in enumerate(_VAL_LOSS)]

    def batch(
        train_points: list[tuple[int, float]], val_points: list[tuple[int, float]]
    ) -> dict[str, Any]:
        points = [{"name": "train/loss", "step": s, "value": v} for s, v in train_points]
        points += [{"name": "val/loss", "step": s, "value": v} for s, v in val_points]
        return {"run_id": PRETRAIN, "points": points}

    return [
        (5, batch(train[:21], val[:4])),
        (15, batch(list(_LOST), [])),
        (25, batch(train[21:], val[4:])),
    ]


def _finetune() -> list[tuple[str, dict[str, Any]]]:
    run = {"run_id": FINETUNE}
    params = {"lr": 1e-5, "batch_size": 64, "epochs": 3}
    inputs = [{"dataset_version": _ds("instruct", "v1-clean"), "role": "train"}]
    return [
        run_started(
            FINETUNE,
            "exp-001",
            2,
            "chat-sft",
            params,
            commit="9b1d0e2",
            inputs=inputs,
            base_model=f"model:{PROJECT}/base-1b@1.0.0",
        ),
        (
            "checkpoint.saved",
            {
                **run,
                "step": 300,
                "epoch": 2,
                "uri": "s3://demo/ckpt/ft/300/",
                "checksum": _SHA,
                "size_bytes": 2_000_000_000,
            },
        ),
        (
            "run.completed",
            {
                **run,
                "conclusion": "instruction following acceptable",
                "final_metrics": {"val/loss": 1.1},
                "final_step": 300,
            },
        ),
        (
            "model.version.registered",
            {
                "name": "chat-1b",
                "version": "1.0.0",
                "produced_by_run": f"run:{FINETUNE}",
                "checkpoint": _ckpt(FINETUNE, 300),
                "uri": "s3://demo/models/chat-1b/1.0.0/",
                "checksum": _SHA,
                "fit_for": ["internal chat assistant"],
            },
        ),
        (
            "model.version.evaluated",
            {
                "evaluation_id": evaluation_id("eval-chat-1b"),
                "model_version": DEPLOYED_MODEL,
                "suite": "demo-eval",
                "dataset_versions": [_ds("eval-suite", "v1")],
                "metrics": {"acc": 0.61},
                "passed": True,
            },
        ),
        (
            "model.version.status.changed",
            {"model_version": DEPLOYED_MODEL, "from_status": "candidate", "to_status": "approved"},
        ),
        (
            "deployment.created",
            {
                "name": "chat-api",
                "endpoint": "https://chat.example.org/v1",
                "environment": "production",
                "serves": [{"model_version": DEPLOYED_MODEL, "traffic_share": 1.0}],
            },
        ),
    ]


def _prototype() -> list[Timed]:
    """Three weeks before the story: a scraped forum dump with neither licence nor note, and a
    prototype trained on it whose run recorded no experiment, no code and no environment."""
    forum = _ds("forum-dump", "v1")
    return [
        ("dataset.registered", {"name": "forum-dump", "description": "demo dataset forum-dump"}),
        (
            "dataset.version.created",
            {
                "name": "forum-dump",
                "version": "v1",
                "storage_uri": "s3://demo/forum-dump/v1/",
                "source": {"uri": "https://forum.example.net/threads/", "obtained_by": "scrape"},
                "checksum": _SHA,
                "record_count": 200_000,
            },
        ),
        (
            "run.started",
            {
                "run_id": PROTOTYPE,
                "name": "chat-proto",
                "params": {"lr": 1e-4},
                "inputs": [{"dataset_version": forum, "role": "train"}],
            },
        ),
        ("run.completed", {"run_id": PROTOTYPE, "final_step": 500}, 360),
        (
            "model.version.registered",
            {"name": "chat-proto", "version": "0.1.0", "produced_by_run": f"run:{PROTOTYPE}"},
        ),
    ]


def _takedown() -> list[Timed]:
    """A day after the story: the forum dump is taken down, the prototype retired for it."""
    takedown = "takedown request from the forum's operator"
    retired = "trained on forum-dump v1, taken down"
    return [
        ("entity.deleted", {"entity": _ds("forum-dump", "v1"), "reason": takedown}),
        (
            "model.version.status.changed",
            {
                "model_version": RETIRED_MODEL,
                "from_status": "candidate",
                "to_status": "retired",
                "reason": retired,
            },
        ),
    ]


def _checkpoint_evaluations() -> list[Timed]:
    """After the pretraining, its two checkpoints on the eval suite v1 (the set chat-1b is
    evaluated on later), registering no model version for either: `provgraph checkpoints`."""
    return [
        (
            "checkpoint.evaluated",
            {
                "evaluation_id": evaluation_id(f"eval-pt-{step}"),
                "checkpoint": _ckpt(PRETRAIN, step),
                "suite": "demo-eval",
                "dataset_versions": [_ds("eval-suite", "v1")],
                "metrics": {"acc": acc},
                "passed": passed,
            },
        )
        for step, acc, passed in ((1000, 0.42, False), (2000, 0.51, True))
    ]


def _setup() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("dataset.registered", {"name": name, "description": f"demo dataset {name}"})
        for name in ("web-corpus", "heldout", "instruct", "eval-suite")
    ] + [
        (
            "environment.snapshot.recorded",
            {
                "key": "trainer-2026-01",
                "image": {
                    "name": "registry.example.org/ml/trainer",
                    "tag": "2026.01",
                    "digest": _SHA,
                },
                "python_version": "3.11.7",
                "frameworks": {"torch": "2.5.1"},
                "packages": {"torch": "2.5.1", "numpy": "2.1.3"},
                "built_by": "ci:images",
            },
        ),
        (
            "experiment.created",
            {
                "key": "exp-001",
                "number": 1,
                "code_name": "demo",
                "goal": "a small chat model from a deduplicated web corpus",
            },
        ),
    ]


def _conventions() -> list[Timed]:
    """After everything else, the team writes down its conventions: naming rules for runs,
    model versions, dataset versions and images, and the storage root; enforced by nobody yet
    (`lint-names` and `collisions` report), and no element of a record required (events
    appended with it in one request may be judged after it, by the log's order)."""
    policy = {
        "names": {
            "run": "{experiment}-r{run_number}",
            "model_version": "*.*.*",
            "dataset_version": "v*",
            "image": "registry.example.org/ml/*:*",
        },
        "storage_roots": ["s3://demo"],
        "reason": "the conventions the team agreed after the first release",
    }
    return [("project.policy.set", policy)]


def demo_events(project: str = PROJECT, *, with_sweep: bool = True) -> list[Event]:
    """The whole story, in the order it happened, each event validated by the contract.

    Another `project` gets the same story under its own ids (tests use that for isolation).
    Without the sweep it is the lineage story alone (pretraining to deployment, without the
    prototype and its takedown either), whose every event has the same id and time as in the
    whole story.
    """
    steps: list[Timed] = [*_setup(), *_versions(), *_pretrain(), *_finetune()]
    if with_sweep:
        steps += [*sweep_setup(), *sweep_runs()]
    events = _timed(steps, _T0, lambda i: f"{project}-{i}", project)
    # The pretraining's metric batches have keys of their own, so every other event keeps the id
    # of its place in the story (`provgraph demo` tops up a story loaded before they were added).
    started = next(e.occurred_at for e in events if e.subject.endswith(PRETRAIN))
    for n, (minutes, payload) in enumerate(_pretrain_metrics()):
        key, when = f"{project}-{PRETRAIN}-metrics-{n}", started + timedelta(minutes=minutes)
        events.append(_event(project, key, "run.metrics.logged", payload, when))
    if with_sweep:  # the prototype and its takedown have keys of their own too
        start = _T0 - timedelta(days=21)
        events += _timed(_prototype(), start, lambda n: f"{project}-prototype-{n}", project)
        end = max(e.occurred_at for e in events) + timedelta(days=1)
        events += _timed(_takedown(), end, lambda n: f"{project}-takedown-{n}", project)
        # The pretraining's checkpoints evaluated, half an hour after it completed.
        done = next(
            e.occurred_at
            for e in events
            if e.event_type == "run.completed" and e.subject.endswith(PRETRAIN)
        )
        evaluated, evals = done + timedelta(minutes=30), _checkpoint_evaluations()
        events += _timed(evals, evaluated, lambda n: f"{project}-ckpt-evals-{n}", project)
        # The scale-up of the sweep's run #4, the morning after the sweep (before the takedown).
        scaled = _T0 + timedelta(days=1)
        events += _timed(scale_up_story(), scaled, lambda n: f"{project}-scale-{n}", project)
        end = max(e.occurred_at for e in events) + timedelta(days=1)
        events += _timed(_conventions(), end, lambda n: f"{project}-conventions-{n}", project)
    return sorted(events, key=lambda event: event.occurred_at)  # stable: the story's order


def _timed(
    steps: list[Timed], start: datetime, key: Callable[[int], str], project: str
) -> list[Event]:
    """The events of `steps`, the first at `start`, each later one its gap after the one before."""
    events, at = [], start
    for i, (event_type, payload, *gap) in enumerate(steps):
        at += timedelta(minutes=gap[0] if gap else _GAP_MINUTES) if i else timedelta(0)
        events.append(_event(project, key(i), event_type, payload, at))
    return events


def _event(project: str, key: str, event_type: str, payload: dict[str, Any], at: datetime) -> Event:
    raw = {
        "event_id": str(uuid.uuid5(NAMESPACE, key)),
        "event_type": event_type,
        "schema_version": _current_version(event_type),
        "occurred_at": at.isoformat(),
        "project": project,
        "producer": PRODUCER,
        "actor": "user:demo",
        "subject": "",
        "payload": _for_project(payload, project),
    }
    return _with_subject(raw, project)


def _for_project(payload: dict[str, Any], project: str) -> dict[str, Any]:
    if project == PROJECT:
        return payload
    text = json.dumps(payload)
    for run in RUNS:  # run ids are global: make them the project's own
        text = text.replace(run, run_id(run, project))
    for key in EVALUATIONS:
        text = text.replace(evaluation_id(key), evaluation_id(key, project))
    result: dict[str, Any] = json.loads(text.replace(f"{PROJECT}/", f"{project}/"))
    return result


def _current_version(event_type: str) -> int:
    return REGISTRY.current_version(event_type)


def _with_subject(raw: dict[str, Any], project: str) -> Event:
    model = REGISTRY.resolve(raw["event_type"], raw["schema_version"])
    payload_type = model.model_fields["payload"].annotation
    assert payload_type is not None
    raw["subject"] = payload_type.model_validate(raw["payload"]).subject(project)
    return parse_event(raw)
