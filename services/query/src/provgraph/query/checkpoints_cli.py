"""`provgraph checkpoints RUN [--metric NAME]`: a run's checkpoints compared stage by stage: each
checkpoint in step order with its step, when it was saved, the metrics saved with it and its
evaluations (`checkpoint.evaluated`), each evaluation metric with its change from the previous
checkpoint with a value on the same evaluation set (`recipes/checkpoint_stages.py`).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`), at most `PROVGRAPH_CHECKPOINT_STAGES_MAX` checkpoints (the latest
steps). Exit codes: 0 answered, 1 not found, 2 invalid argument.
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.checkpoint_stages import render_stages
from provgraph.query.terminal import add_json_option, not_found, print_answer


def _checkpoints(args: argparse.Namespace) -> int:
    with command_services() as services:
        stages = services.checkpoint_stages()
        try:
            answer = stages.stages(args.run, Scope.everything(), args.metric)
        except NotFoundError as exc:
            return not_found(exc.message)
    print_answer(answer, args.json, render_stages)
    return 0


def register(sub: Any) -> None:
    """Add `checkpoints` to the `provgraph` parser."""
    p = command(
        sub,
        "checkpoints",
        _checkpoints,
        "a run's checkpoints stage by stage: saved metrics, evaluations, change per metric",
    )
    p.add_argument("run", metavar="RUN", help="a run id, e.g. run:demo-pretrain-001")
    p.add_argument("--metric", metavar="NAME", help="keep one metric")
    add_json_option(p)
