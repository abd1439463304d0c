"""`provgraph compare EXPERIMENT | RUN...`: runs side by side, and the one-change-at-a-time
check (`--check` exits 3 when a comparison is flagged: more than one setting differs).
`provgraph effects --project P --metric M`: what each single change did, over every one-change
pair of the project's experiments.

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument or a
setting missing or wrong, 3 flagged (with `--check` only).
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.compare_table import render_comparison
from provgraph.query.recipes.effects import BY_VALUE, GROUPINGS, render_effects
from provgraph.query.recipes.team_service import parse_instant
from provgraph.query.terminal import add_json_option, not_found, print_answer
from provgraph.schemas.storage import format_time

FLAGGED = 3


def _answer(args: argparse.Namespace) -> dict[str, Any]:
    experiment = args.ids[0] if args.ids[0].startswith("experiment:") else None
    with command_services() as services:
        return services.comparisons().compare(
            Scope.everything(),
            experiment=experiment,
            runs=[] if experiment else args.ids,
            everything=args.all,
            baseline=args.baseline,
            sort_by=f"-{args.sort}" if args.sort and args.desc else args.sort,
        )


def _compare(args: argparse.Namespace) -> int:
    try:
        answer = _answer(args)
    except NotFoundError as exc:
        return not_found(exc.message)
    print_answer(answer, args.json, render_comparison)
    return FLAGGED if args.check and answer["flagged"] else 0


def _effects(args: argparse.Namespace) -> int:
    since = format_time(parse_instant(args.since, "--since")) if args.since else None
    with command_services() as services:
        service = services.comparisons()
        try:
            answer = service.effects(
                Scope.everything(),
                project=args.project,
                metric=args.metric,
                since=since,
                group_by=args.by,
            )
        except NotFoundError as exc:
            return not_found(exc.message)
    print_answer(answer, args.json, render_effects)
    return 0


def register(sub: Any) -> None:
    """Add `compare` and `effects` to the `provgraph` parser."""
    p = command(
        sub,
        "compare",
        _compare,
        "runs side by side; each checked against the run it should be compared with",
    )
    p.add_argument(
        "ids",
        nargs="+",
        metavar="EXPERIMENT | RUN",
        help="an experiment id or run ids, e.g. experiment:demo-llm/exp-001 or "
        "run:demo-pretrain-001 run:demo-finetune-001",
    )
    p.add_argument("--all", action="store_true", help="every param, not only those that differ")
    p.add_argument("--sort", metavar="METRIC", help="a metric key (final:val/loss) or name")
    p.add_argument("--desc", action="store_true", help="sort highest first (default: lowest)")
    p.add_argument("--baseline", metavar="RUN", help="compare every run with this run")
    p.add_argument(
        "--check", action="store_true", help="exit 3 when more than one setting differs in a pair"
    )
    add_json_option(p)
    e = command(
        sub,
        "effects",
        _effects,
        "what each single change did to a metric, over every one-change pair of a project",
    )
    e.add_argument("--project", required=True, help="the project")
    e.add_argument(
        "--metric", required=True, help="a metric key (final:val/loss) or name (val/loss)"
    )
    e.add_argument("--since", help="only pairs whose later run started at or after this time")
    e.add_argument(
        "--by",
        choices=GROUPINGS,
        default=BY_VALUE,
        help="group numeric parameter changes by their values (default) or by factor (x2)",
    )
    add_json_option(e)
