"""The demo's second experiment: a fine-tuning sweep that gives every practice question an answer.

`exp-002` fine-tunes `base-1b@1.0.0` five times (see docs/practices.md for the questions):

  #1 sft-baseline   the recipe of chat-1b@1.0.0 again, with resources; completed
  #2 sft-lr2e-5     lr 2e-5 (one change); fails (NCCL timeout), resumes from its checkpoint,
                    completes; registered as chat-1b@1.1.0, evaluated on eval-suite v1 and v2
  #3 sft-v2-data    instruct v2 *and* the trainer-2026-02 image (two changes: flagged); fails
                    out of memory, no conclusion
  #4 sft-v2-bs32    batch size 32 (one change); preempted and resumed; completes, no conclusion
  #5 sft-v2-long    5 epochs (one change); still running, silent since its first metrics

Checkpoints record their save time (`save_seconds`), so the checkpoint advice has a cost, and the
interruptions of #2, #3 and #4 (and the pretraining's node failure) give it a rate.
"""

from __future__ import annotations

from typing import Any

from provgraph.cli.demo_ids import PROJECT, SHA, ckpt, ds, evaluation_id

Step = tuple[str, dict[str, Any]]
# A step and the minutes since the step before it (demo_story's default gap when absent).
Timed = Step | tuple[str, dict[str, Any], int]

_ENV_OLD = f"environment:{PROJECT}/trainer-2026-01"
_ENV_NEW = f"environment:{PROJECT}/trainer-2026-02"
_BASE = f"model:{PROJECT}/base-1b@1.0.0"
_SWEEP_MODEL = f"model:{PROJECT}/chat-1b@1.1.0"
_RESOURCES = {"num_nodes": 1, "devices_per_node": 8, "accelerator": "H100"}


def sweep_setup() -> list[Step]:
    """A rebuilt image, the sweep's experiment, a new data version and a harder eval set."""
    return [
        (
            "environment.snapshot.recorded",
            {
                "key": "trainer-2026-02",
                "based_on": _ENV_OLD,
                "image": {
                    "name": "registry.example.org/ml/trainer",
                    "tag": "2026.02",
                    "digest": "sha256:" + "cd" * 32,
                },
                "python_version": "3.11.7",
                "frameworks": {"torch": "2.6.0"},
                "packages": {"torch": "2.6.0", "numpy": "2.1.3", "flash-attn": "2.7.0"},
                "built_by": "ci:images",
            },
        ),
        (
            "experiment.created",
            {
                "key": "exp-002",
                "number": 2,
                "code_name": "sft-sweep",
                "goal": "a better chat model: tune the fine-tuning of base-1b",
            },
        ),
        (
            "dataset.version.created",
            {
                "name": "instruct",
                "version": "v2",
                "storage_uri": "s3://demo/instruct/v2/",
                "change_note": "20k multi-turn dialogues added",
                "previous_version": "v1-clean",
                "derived_from": [
                    {"dataset_version": ds("instruct", "v1-clean"), "transform": "add"}
                ],
                "checksum": SHA,
                "record_count": 68_500,
            },
        ),
        (
            "dataset.version.created",
            {
                "name": "eval-suite",
                "version": "v2",
                "storage_uri": "s3://demo/eval-suite/v2/",
                "change_note": "harder multi-step questions added",
                "previous_version": "v1",
                "checksum": SHA,
                "record_count": 3_000,
            },
        ),
    ]


def run_started(
    run: str,
    experiment: str,
    number: int,
    name: str,
    params: dict[str, Any],
    *,
    commit: str,
    inputs: list[dict[str, str]],
    environment: str = _ENV_OLD,
    **more: Any,
) -> Step:
    """The `run.started` of a demo run of the trainer's code at `commit` (the story's runs use
    it too); `more`: what a run adds (its base model, its resources)."""
    return (
        "run.started",
        {
            "run_id": run,
            "experiment": f"experiment:{PROJECT}/{experiment}",
            "run_number": number,
            "name": name,
            "params": params,
            "code": {
                "repo": "https://git.example.org/ml/trainer",
                "commit": commit,
                "dirty": False,
            },
            "environment": environment,
            "inputs": inputs,
            **more,
        },
    )


def _start(n: int, name: str, **changes: Any) -> Step:
    """Run #n of the sweep: the recipe of chat-1b@1.0.0, with `changes` (params, train, env)."""
    params = {"lr": 1e-5, "batch_size": 64, "epochs": 3, **changes.get("params", {})}
    train = changes.get("train", ds("instruct", "v1-clean"))
    return run_started(
        f"demo-sft-00{n}",
        "exp-002",
        n,
        name,
        params,
        commit="9b1d0e2",
        inputs=[{"dataset_version": train, "role": "train"}],
        environment=changes.get("environment", _ENV_OLD),
        base_model=_BASE,
        resources=_RESOURCES,
    )


def _saved(n: int, step: int, save_seconds: float) -> Step:
    run = f"demo-sft-00{n}"
    return (
        "checkpoint.saved",
        {
            "run_id": run,
            "step": step,
            "uri": f"s3://demo/ckpt/sft-{n}/{step}/",
            "checksum": SHA,
            "size_bytes": 2_000_000_000,
            "save_seconds": save_seconds,
        },
    )


def _logged(n: int, *points: tuple[int, float]) -> Step:
    listed = [{"name": "val/loss", "step": step, "value": value} for step, value in points]
    return ("run.metrics.logged", {"run_id": f"demo-sft-00{n}", "points": listed})


def _resumed(n: int, step: int, cause: str, lost: int) -> Step:
    run = f"demo-sft-00{n}"
    return (
        "run.resumed",
        {
            "run_id": run,
            "from_checkpoint": ckpt(run, step),
            "interruption_cause": cause,
            "steps_lost": lost,
            "resumed_at_step": step,
        },
    )


def _evaluated(key: str, model_version: str, version: str, acc: float) -> Step:
    return (
        "model.version.evaluated",
        {
            "evaluation_id": evaluation_id(key),
            "model_version": model_version,
            "suite": "demo-eval",
            "dataset_versions": [ds("eval-suite", version)],
            "metrics": {"acc": acc},
            "passed": acc >= 0.5,
        },
    )


def _completed(n: int, val_loss: float, conclusion: str | None = None) -> Step:
    payload = {"run_id": f"demo-sft-00{n}", "conclusion": conclusion, "final_step": 300}
    return ("run.completed", {**payload, "final_metrics": {"val/loss": val_loss}})


def _failed(n: int, error: tuple[str, str], step: int, conclusion: str | None = None) -> Step:
    kind, message = error
    payload = {"run_id": f"demo-sft-00{n}", "conclusion": conclusion, "final_step": step}
    return ("run.failed", {**payload, "error": {"type": kind, "message": message}})


def _after(minutes: int, step: Step) -> Timed:
    return (*step, minutes)


def sweep_runs() -> list[Timed]:
    """The five runs, the version the best of them became, and what the live model was told."""
    new_data = {"train": ds("instruct", "v2"), "environment": _ENV_NEW}
    return [
        _start(1, "sft-baseline"),
        _after(30, _saved(1, 100, 48.0)),
        _after(30, _saved(1, 200, 52.0)),
        _after(5, _logged(1, (100, 1.25), (200, 1.14))),
        _after(25, _completed(1, 1.1, "reproduces chat-1b@1.0.0: the sweep's baseline")),
        _start(2, "sft-lr2e-5", params={"lr": 2e-5}),
        _after(30, _saved(2, 100, 50.0)),
        _after(
            22,
            _failed(
                2,
                ("NCCLTimeout", "collective timed out on rank 5"),
                160,
                "a node was lost, not the lr: resumed from step 100",
            ),
        ),
        _after(8, _resumed(2, 100, "node failure", 60)),
        _after(30, _saved(2, 200, 49.0)),
        _after(5, _logged(2, (100, 1.16), (200, 1.05))),
        _after(25, _completed(2, 1.02, "2e-5 beats 1e-5 on val/loss: registered as chat-1b 1.1.0")),
        (
            "model.version.registered",
            {
                "name": "chat-1b",
                "version": "1.1.0",
                "produced_by_run": "run:demo-sft-002",
                "checkpoint": ckpt("demo-sft-002", 200),
                "uri": "s3://demo/models/chat-1b/1.1.0/",
                "checksum": SHA,
                "fit_for": ["internal chat assistant"],
            },
        ),
        _evaluated("eval-chat-1b.1-v1", _SWEEP_MODEL, "v1", 0.66),
        _evaluated("eval-chat-1b.1-v2", _SWEEP_MODEL, "v2", 0.55),
        _evaluated("eval-chat-1b-v2", f"model:{PROJECT}/chat-1b@1.0.0", "v2", 0.49),
        _start(3, "sft-v2-data", params={"lr": 2e-5}, **new_data),
        _after(30, _saved(3, 100, 61.0)),
        _after(17, _failed(3, ("OutOfMemoryError", "CUDA out of memory"), 140)),
        _start(4, "sft-v2-bs32", params={"lr": 2e-5, "batch_size": 32}, **new_data),
        _after(30, _saved(4, 100, 58.0)),
        _after(25, _resumed(4, 100, "preempted", 40)),
        _after(30, _saved(4, 200, 60.0)),
        _after(5, _logged(4, (100, 1.08), (200, 0.99))),
        _completed(4, 0.98),
        (
            "deployment.feedback.recorded",
            {
                "name": "chat-api",
                "model_version": f"model:{PROJECT}/chat-1b@1.0.0",
                "metrics": {"thumbs_up_rate": 0.81},
            },
        ),
        _start(5, "sft-v2-long", params={"lr": 2e-5, "batch_size": 32, "epochs": 5}, **new_data),
        _after(15, _logged(5, (50, 1.31))),
    ]
