"""`provgraph audit-records --project P`: how complete the project's records are, per kind,
what is missing, how often and by whom (`--check` exits 3 when a record misses a required
element: a gate for CI).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument or a
setting missing or wrong, 3 a required element missing (with `--check` only).
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_readers
from provgraph.query.read.model import Scope
from provgraph.query.recipes.records_audit import audit_records, render_audit
from provgraph.query.recipes.team_service import parse_instant
from provgraph.query.terminal import add_json_option, not_found, print_answer
from provgraph.schemas.storage import format_time

EVERYTHING = Scope.everything()
FAILED_CHECK = 3
ABOUT = "how complete a project's records are: what is missing, how often, by whom"


def _audit(args: argparse.Namespace) -> int:
    since = format_time(parse_instant(args.since, "--since")) if args.since else None
    with command_readers() as (readers, _):
        try:
            answer = audit_records(readers.records, args.project, EVERYTHING, since=since)
        except NotFoundError as exc:
            return not_found(exc.message)
    print_answer(answer, args.json, render_audit)
    failed = args.check and bool(answer["failed"])
    return FAILED_CHECK if failed else 0


def register(sub: Any) -> None:
    """Add `audit-records` to the `provgraph` parser."""
    p = command(sub, "audit-records", _audit, ABOUT)
    p.add_argument("--project", required=True, help="the project")
    p.add_argument("--since", help="only records first recorded at or after this ISO 8601 time")
    p.add_argument(
        "--check", action="store_true", help="exit 3 when a record misses a required element"
    )
    add_json_option(p)
