"""`provgraph cost MODEL_VERSION | EXPERIMENT [--include-base]`: accelerator-hours split into
the producing run (or an experiment's completed runs), failed attempts and runs still running,
the work lost to interruptions, checkpoint storage and, with `--include-base`, the base model's
share and, with `--metric`, the accelerator-hours per point gained over the previous best on
one evaluation set (`recipes/cost.py`).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument.
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.cost import render_cost
from provgraph.query.terminal import add_json_option, not_found, print_answer


def _cost(args: argparse.Namespace) -> int:
    with command_services() as services:
        try:
            answer = services.costs().cost(
                args.target,
                Scope.everything(),
                include_base=args.include_base,
                metric=args.metric,
                datasets=args.dataset or (),
                suite=args.suite,
                higher_is_better=args.higher_is_better,
            )
        except NotFoundError as exc:
            return not_found(exc.message)
    print_answer(answer, args.json, render_cost)
    return 0


def register(sub: Any) -> None:
    """Add `cost` to the `provgraph` parser."""
    p = command(
        sub,
        "cost",
        _cost,
        "accelerator-hours and storage of a model version or an experiment, failures included",
    )
    p.add_argument(
        "target",
        metavar="MODEL_VERSION | EXPERIMENT",
        help="e.g. model:demo-llm/chat-1b@1.1.0 or experiment:demo-llm/exp-002",
    )
    p.add_argument(
        "--include-base",
        action="store_true",
        help="add the base model version's share (its cost over the runs that started from it)",
    )
    p.add_argument(
        "--metric",
        help="a model version's gain on this evaluation metric over the previous best, and "
        "the accelerator-hours per point (0.01) gained",
    )
    p.add_argument(
        "--dataset",
        action="append",
        metavar="EVAL_VERSION",
        help="with --metric: the evaluation set's dataset versions (repeat)",
    )
    p.add_argument("--suite", help="with --metric: the evaluation suite")
    p.add_argument("--higher-is-better", action="store_true", help="with --metric")
    add_json_option(p)
