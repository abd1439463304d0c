"""The names of the demo story (project, runs, evaluations) and the ids built from them."""

from __future__ import annotations

import uuid

PROJECT = "demo-llm"
NAMESPACE = uuid.UUID("6f1b7c3e-2d4a-4b8e-9c1f-0a2b3c4d5e6f")
SHA = "sha256:" + "ab" * 32

PRETRAIN = "demo-pretrain-001"
FINETUNE = "demo-finetune-001"
SWEEP_RUNS = tuple(f"demo-sft-00{n}" for n in range(1, 6))
PROTOTYPE = "demo-proto-001"
SCALE_RUN = "demo-scale-001"  # run #4 of the sweep (its pilot) on four nodes
RUNS = (PRETRAIN, FINETUNE, *SWEEP_RUNS, PROTOTYPE, SCALE_RUN)  # global: a project prefixes them
# Evaluation ids are uuid5 of a key (and of the project, outside the demo project).
EVALUATIONS = (
    "eval-chat-1b",
    "eval-chat-1b-v2",
    "eval-chat-1b.1-v1",
    "eval-chat-1b.1-v2",
    "eval-pt-1000",
    "eval-pt-2000",
)
DEPLOYED_MODEL = f"model:{PROJECT}/chat-1b@1.0.0"
RETIRED_MODEL = f"model:{PROJECT}/chat-proto@0.1.0"


def ds(name: str, version: str) -> str:
    return f"dataset:{PROJECT}/{name}@{version}"


def ckpt(run: str, step: int) -> str:
    return f"checkpoint:{run}/{step}"


def evaluation_id(key: str, project: str = PROJECT) -> str:
    """The demo's evaluation `key` in `project` (the demo project keeps the plain key)."""
    name = key if project == PROJECT else f"{key}-{project}"
    return str(uuid.uuid5(NAMESPACE, name))


def run_id(run: str, project: str = PROJECT) -> str:
    """The demo's run id `run` in `project`."""
    return run if project == PROJECT else f"{project}-{run}"
