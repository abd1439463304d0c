"""`provgraph search TEXT`: what earlier attempts concluded, from the full-text index of goals,
conclusions, error messages, abort reasons, descriptions, change notes and incidents; ranked,
each hit with the text that matched (`recipes/lessons.py`).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered (with hits), 1 no hit, 2 invalid argument.
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.lessons import KINDS, render_lessons
from provgraph.query.terminal import NOT_FOUND, add_json_option, print_answer


def _search(args: argparse.Namespace) -> int:
    with command_services() as services:
        answer = services.lessons().search(
            " ".join(args.text),
            Scope.everything(),
            project=args.project,
            kinds=args.kind or (),
            status=args.status,
            metric=args.metric,
            param=args.param,
            uses=args.uses,
            first=args.limit,
        )
    print_answer(answer, args.json, render_lessons)
    return 0 if answer["hits"] else NOT_FOUND


def register(sub: Any) -> None:
    """Add `search` to the `provgraph` parser."""
    p = command(
        sub,
        "search",
        _search,
        "search what was concluded: goals, conclusions, errors, change notes, incidents",
    )
    p.add_argument("text", nargs="+", help="words to look for (any of them; more rank higher)")
    p.add_argument("--project", help="only this project")
    p.add_argument("--kind", action="append", choices=list(KINDS), help="only these (repeat)")
    p.add_argument("--status", help="only nodes with this status (failed, completed, ...)")
    p.add_argument(
        "--metric", metavar="CONDITION", help="only runs meeting it: 'final:val/loss<1.5'"
    )
    p.add_argument("--param", metavar="NAME=VALUE", help="only runs with it: lr=2e-5")
    p.add_argument("--uses", metavar="DATASET_VERSION", help="only what used it (or its run did)")
    p.add_argument("--limit", type=int, default=20, help="at most this many hits (default 20)")
    add_json_option(p)
