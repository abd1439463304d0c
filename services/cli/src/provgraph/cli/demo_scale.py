"""The demo's pilot and scale-up: the sweep's best recipe, run #4 of `exp-002` (one node of 8
H100), scaled up to four nodes in `exp-003`, so that `provgraph scale-up` has an answer.

The scale-up also raised the batch size (32 -> 128) with the scale: flagged, since a scale-up
should change only the scale. Its validation loss fell as the pilot's did and was lower at
step 200, where the pilot stopped: the trend held.
"""

from __future__ import annotations

from typing import Any

from provgraph.cli.demo_ids import PROJECT, SCALE_RUN, ds
from provgraph.cli.demo_sweep import Timed, run_started

PILOT = "run:demo-sft-004"


def scale_up_story() -> list[Timed]:
    """The experiment, the scale-up's start, its metrics and its end."""
    resources: dict[str, Any] = {
        "num_nodes": 4,
        "devices_per_node": 8,
        "accelerator": "H100",
        "parallelism": {"data": 32},
    }
    points = [(100, 1.05), (200, 0.97), (400, 0.9)]
    return [
        (
            "experiment.created",
            {
                "key": "exp-003",
                "number": 3,
                "code_name": "sft-scale",
                "goal": "the sweep's best recipe (exp-002 #4) on four nodes",
            },
        ),
        run_started(
            SCALE_RUN,
            "exp-003",
            1,
            "sft-v2-bs32-x4",
            {"lr": 2e-5, "batch_size": 128, "epochs": 3},
            commit="9b1d0e2",
            inputs=[{"dataset_version": ds("instruct", "v2"), "role": "train"}],
            environment=f"environment:{PROJECT}/trainer-2026-02",
            base_model=f"model:{PROJECT}/base-1b@1.0.0",
            resources=resources,
            scaled_from=PILOT,
        ),
        (
            "run.metrics.logged",
            {
                "run_id": SCALE_RUN,
                "points": [{"name": "val/loss", "step": s, "value": v} for s, v in points],
            },
            40,
        ),
        (
            "run.completed",
            {
                "run_id": SCALE_RUN,
                "final_step": 400,
                "final_metrics": {"val/loss": 0.89},
                "conclusion": "four nodes kept the pilot's trend; the batch size grew with them",
            },
            20,
        ),
    ]
