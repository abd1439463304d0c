"""`provgraph best | env-diff | runs-with`: the best model version on one evaluation set and
what made it better, what changed between two environment snapshots, which runs ran with a
package. A readable table by default, `--json` for scripts.

Each command reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project
readable (`connect.command_readers`). Exit codes: 0 answered; 1 not found (no such model or
snapshot, no evaluation set matching, no run with the package); 2 invalid argument, or `best`
on a metric recorded on several evaluation sets without `--dataset`/`--suite` choosing one (the
sets are printed).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.recipes.best_env_service import (
    RUNS_WITH_DEFAULT,
    RUNS_WITH_MAX,
    BestAndEnvironments,
)
from provgraph.query.recipes.best_model import render_best
from provgraph.query.recipes.env_diff import render_env_diff, render_runs_with
from provgraph.query.terminal import NOT_FOUND, add_json_option, not_found, print_answer

AMBIGUOUS = 2


@contextmanager
def _questions() -> Iterator[BestAndEnvironments]:
    with command_services() as services:
        yield services.best_and_environments()


def _best(args: argparse.Namespace) -> int:
    with _questions() as questions:
        answer = questions.best(
            args.model,
            args.metric,
            Scope.everything(),
            project=args.project,
            datasets=args.dataset or (),
            suite=args.suite,
            higher_is_better=args.higher_is_better,
        )
    if answer is None:
        return not_found(args.model)
    print_answer(answer, args.json, render_best)
    if answer["ambiguous"]:
        return AMBIGUOUS
    return 0 if answer["best"] is not None else NOT_FOUND


def _env_diff(args: argparse.Namespace) -> int:
    with _questions() as questions:
        try:
            answer = questions.env_diff(args.a, args.b, Scope.everything())
        except NotFoundError as exc:  # it names the side(s) missing
            return not_found(exc.message)
    print_answer(answer, args.json, render_env_diff)
    return 0


def _runs_with(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= RUNS_WITH_MAX:
        raise InvalidArgumentError(f"--limit must be 1..{RUNS_WITH_MAX}")
    with _questions() as questions:
        answer = questions.runs_with(
            args.package, None, Scope.everything(), project=args.project, limit=args.limit
        )
    print_answer(answer, args.json, render_runs_with)
    return 0 if answer["runs"] else NOT_FOUND


def register(sub: Any) -> None:
    """Add `best`, `env-diff` and `runs-with` to the `provgraph` parser."""
    p = command(
        sub, "best", _best, "the best model version by a metric on one evaluation set, and why"
    )
    p.add_argument("model", help="a model id (model:demo-llm/chat-1b), or a name with --project")
    p.add_argument("--metric", required=True, help="the evaluation metric, e.g. acc")
    p.add_argument(
        "--dataset",
        action="append",
        metavar="EVAL_VERSION",
        help="the evaluation dataset version (repeat for a set of several)",
    )
    p.add_argument("--suite", help="the evaluation suite, when several share the data")
    p.add_argument("--project", help="the project of a model given by name")
    p.add_argument(
        "--higher-is-better",
        action="store_true",
        help="a larger value is better (default: lower, as for a loss)",
    )
    add_json_option(p)

    p = command(
        sub,
        "env-diff",
        _env_diff,
        "what changed between two environment snapshots, along their chain",
    )
    p.add_argument("a", help="the earlier snapshot, e.g. environment:demo-llm/trainer-2026-01")
    p.add_argument("b", help="the later snapshot")
    add_json_option(p)

    p = command(sub, "runs-with", _runs_with, "the runs that ran with a package (at a version)")
    p.add_argument("package", help="PACKAGE or PACKAGE==VERSION, e.g. torch==2.5.1")
    p.add_argument("--project", help="only this project's environments")
    p.add_argument(
        "--limit",
        type=int,
        default=RUNS_WITH_DEFAULT,
        help=f"runs to list at most (default {RUNS_WITH_DEFAULT}, at most {RUNS_WITH_MAX})",
    )
    add_json_option(p)
