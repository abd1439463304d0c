"""`provgraph digest` and `provgraph advise-checkpoints`: the weekly digest of a project and
how often to save checkpoints, from the records.

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument or a
setting missing or wrong.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.checkpoint_advice import render_advice
from provgraph.query.recipes.digest_render import render_digest
from provgraph.query.recipes.team_service import TeamQuestions, parse_duration, parse_instant
from provgraph.query.terminal import add_json_option, not_found, print_answer

EVERYTHING = Scope.everything()


def _ask(question: Callable[[TeamQuestions], dict[str, Any]]) -> dict[str, Any]:
    with command_services() as services:
        return question(services.team())


def _digest(args: argparse.Namespace) -> int:
    since = parse_duration(args.since, "--since")
    stalled = parse_duration(args.stalled_after, "--stalled-after")
    until = parse_instant(args.until, "--until")
    answer = _ask(lambda q: q.digest(args.project, EVERYTHING, since_s=since, until=until,
                                     stalled_after_s=stalled))  # fmt: skip
    print_answer(answer, args.json, lambda a: render_digest(a, markdown=args.markdown).rstrip("\n"))
    return 0


def _advise(args: argparse.Namespace) -> int:
    rework = parse_duration(args.max_rework, "--max-rework")
    try:
        answer = _ask(
            lambda q: q.advise_checkpoints(
                EVERYTHING, target=args.target, project=args.project, max_rework_s=rework
            )
        )
    except NotFoundError as exc:
        return not_found(exc.message)
    print_answer(answer, args.json, render_advice)
    return 0


def register(sub: Any) -> None:
    """Add `digest` and `advise-checkpoints` to the `provgraph` parser."""
    p = command(
        sub,
        "digest",
        _digest,
        "who ran what, what failed, what is stuck: one page for the weekly sync",
    )
    p.add_argument("--project", action="append", required=True, help="a project (repeatable)")
    p.add_argument("--since", default="7d", help="the window: 7d, 24h, 30m (default 7d)")
    p.add_argument("--until", help="the window's end, ISO 8601 (default now)")
    p.add_argument(
        "--stalled-after", default="2h", help="running with no event for this long (default 2h)"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true", help="Markdown, for a chat or a wiki")
    add_json_option(out)

    p = command(
        sub, "advise-checkpoints", _advise, "how often to save checkpoints, from the records"
    )
    p.add_argument(
        "target", nargs="?", metavar="RUN | EXPERIMENT", help="run:<id> or experiment:<p>/<key>"
    )
    p.add_argument("--project", help="every run of this project instead")
    p.add_argument(
        "--max-rework", default="30m", help="acceptable work lost per interruption (default 30m)"
    )
    add_json_option(p)
