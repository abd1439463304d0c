"""The guards' story: a project whose conventions (a metric alias, naming rules, a storage
root) its records break, as `test_guards_story` and the explorer's Guards page test use it.

The story (project p):

  policy    metric alias validation/loss = val/loss; run names "{experiment}-r{run_number}",
            model version names "v*"; storage root s3://lake/p
  sft       sft-r1 (run 1, lr 1e-5)  final val/loss 1.0, train/loss 2.0; checkpoint
                                     s3://lake/p/ckpt/shared
            tmp    (run 2, lr 2e-5)  final validation/loss 0.8  -> breaks the rule: sft-r2
  dpo       dpo-r1 (run 1)           checkpoint s3://lake/p/ckpt/shared (a second job)
  data      web@v1 stored at file:///home/ann/web (a personal path)
  models    chat@v1 (by sft-r1) evaluated validation/loss 0.9; chat@v2 (by tmp) val/loss 0.7,
            stored at s3://elsewhere/chat/v2 (outside the root); chat@release-3 (by tmp)
            val_loss 0.95 (an undeclared spelling) -> breaks "v*", no name to suggest
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import Driver

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from support.stories import story_event

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
Step = tuple[str, dict[str, Any]]


def guards_story(p: str) -> list[Step]:
    """The story's steps (event type, payload) in project `p`, in order."""
    policy = {
        "metric_aliases": {"validation/loss": "val/loss"},
        "names": {"run": "{experiment}-r{run_number}", "model_version": "v*"},
        "storage_roots": ["s3://lake/p"],
    }
    return [
        ("project.policy.set", policy),
        ("experiment.created", {"key": "sft", "number": 1, "goal": "fine-tune"}),
        ("experiment.created", {"key": "dpo", "number": 2, "goal": "preferences"}),
        _run(p, "sft-1", "sft", 1, "sft-r1", {"lr": 1e-5}),
        _saved(p, "sft-1"),
        ("run.completed", {"run_id": f"{p}-sft-1",
                           "final_metrics": {"val/loss": 1.0, "train/loss": 2.0}}),
        _run(p, "sft-2", "sft", 2, "tmp", {"lr": 2e-5}),
        ("run.completed", {"run_id": f"{p}-sft-2", "final_metrics": {"validation/loss": 0.8}}),
        _run(p, "dpo-1", "dpo", 1, "dpo-r1", {}),
        _saved(p, "dpo-1"),
        ("dataset.version.created",
         {"name": "web", "version": "v1", "storage_uri": "file:///home/ann/web"}),
        _model(p, "v1", "sft-1", None),
        _model(p, "v2", "sft-2", "s3://elsewhere/chat/v2"),
        _model(p, "release-3", "sft-2", None),
        _evaluated(p, 1, "v1", {"validation/loss": 0.9}),
        _evaluated(p, 2, "v2", {"val/loss": 0.7}),
        _evaluated(p, 3, "release-3", {"val_loss": 0.95}),
    ]  # fmt: skip


def _run(p: str, key: str, experiment: str, number: int, name: str, params: Any) -> Step:
    payload = {"run_id": f"{p}-{key}", "experiment": f"experiment:{p}/{experiment}",
               "run_number": number, "name": name, "params": params}  # fmt: skip
    return ("run.started", payload)


def _saved(p: str, key: str) -> Step:
    payload = {"run_id": f"{p}-{key}", "step": 100, "uri": "s3://lake/p/ckpt/shared"}
    return ("checkpoint.saved", payload)


def _model(p: str, version: str, run: str, uri: str | None) -> Step:
    payload = {"name": "chat", "version": version, "produced_by_run": f"run:{p}-{run}"}
    return ("model.version.registered", {**payload, **({"uri": uri} if uri else {})})


def _evaluated(p: str, n: int, version: str, metrics: dict[str, float]) -> Step:
    payload = {"evaluation_id": str(uuid.UUID(int=n)), "model_version": f"model:{p}/chat@{version}",
               "suite": "s", "metrics": metrics, "passed": True}  # fmt: skip
    return ("model.version.evaluated", payload)


def seed_guards_story(driver: Driver, project: str) -> None:
    """Write the story in `project` to `driver`'s graph as the projector writes it, a minute
    between steps."""
    events = [
        story_event(project, t, payload, T0 + timedelta(minutes=i))
        for i, (t, payload) in enumerate(guards_story(project))
    ]
    GraphWriter(driver).write([project_event(e) for e in events])
