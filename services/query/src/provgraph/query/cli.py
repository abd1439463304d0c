"""`provgraph reproduce | diff | trace | impact | whois`: provenance questions from the terminal.

Each command reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project
readable, through the readers `connect.command_readers` builds. Exit codes: 0 answered, 1 not
found, 2 invalid argument or a setting missing or wrong (no password, Neo4j unreachable: the
command line's main says which, in one line).
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_readers
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.ids import checked_id
from provgraph.query.read.model import Direction, Scope
from provgraph.query.recipes.diff_render import render_diff
from provgraph.query.recipes.impact import impact_answer, render_impact
from provgraph.query.recipes.service import Recipes
from provgraph.query.recipes.trace import render_tree
from provgraph.query.recipes.whois import ProgressLine, hash_file, render_whois, whois_report
from provgraph.query.terminal import (
    NOT_FOUND,
    add_json_option,
    not_found,
    print_answer,
    print_json,
)


def _reproduce(args: argparse.Namespace) -> int:
    with command_readers() as (readers, _):
        answer = Recipes(readers.recipes).reproduce(args.id, Scope.everything())
    if answer is None:
        return not_found(args.id)
    print_json(answer)
    return 0


def _diff(args: argparse.Namespace) -> int:
    with command_readers() as (readers, _):
        try:
            answer = Recipes(readers.recipes).diff(args.a, args.b, Scope.everything())
        except NotFoundError as exc:  # it names the side(s) missing
            return not_found(exc.message)
    print_answer(answer, args.json, render_diff)
    return 0


def _trace(args: argparse.Namespace) -> int:
    direction = Direction.DOWNSTREAM if args.down else Direction.UPSTREAM
    with command_readers() as (readers, settings):
        if not 1 <= args.depth <= settings.lineage_max_depth:
            raise InvalidArgumentError(f"--depth must be 1..{settings.lineage_max_depth}")
        lineage = readers.graph.lineage(
            args.id, Scope.everything(), direction=direction, depth=args.depth
        )
    if lineage is None:
        return not_found(args.id)
    print(render_tree(lineage, direction))
    return 0


def _impact(args: argparse.Namespace) -> int:
    checked_id("id", args.id)  # malformed: invalid_id (exit 2), not a node that is missing
    with command_readers() as (readers, _):
        answer = impact_answer(readers.graph, args.id, Scope.everything())
    if answer is None:
        return not_found(args.id)
    print_answer(answer, args.json, render_impact)
    return 0


def _whois(args: argparse.Namespace) -> int:
    try:
        checksum = hash_file(args.path, args.algorithm, progress=ProgressLine())
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read {args.path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc
    scope = Scope.everything()
    with command_readers() as (readers, _):
        reader = readers.graph
        matches = reader.artifact(scope, checksum=checksum)
        chains = {m.id: reader.lineage(m.id, scope, depth=args.depth) for m in matches}
    report = whois_report(args.path, checksum, matches, chains)
    print_answer(report, args.json, render_whois)
    return 0 if report["found"] else NOT_FOUND


def register(sub: Any) -> None:
    """Add the query commands to the `provgraph` parser."""
    # Expected failures (InvalidArgumentError, an unreachable Neo4j) reach the command line's
    # main, which prints them as one line with exit code 2.
    p = command(
        sub, "reproduce", _reproduce, "the complete recipe of a model version or checkpoint"
    )
    p.add_argument("id", help="a model version or checkpoint id, e.g. model:demo-llm/chat-1b@1.0.0")

    p = command(sub, "diff", _diff, "what changed between two runs or two model versions")
    p.add_argument("a", help="the earlier run or model version, e.g. run:demo-pretrain-001")
    p.add_argument("b", help="the later one, of the same kind, e.g. run:demo-finetune-001")
    add_json_option(p)

    p = command(sub, "trace", _trace, "the lineage of a node as a tree")
    p.add_argument(
        "id", help="any node id, e.g. model:demo-llm/chat-1b@1.0.0 or dataset:demo-llm/instruct"
    )
    way = p.add_mutually_exclusive_group()
    way.add_argument("--up", action="store_true", help="towards the sources (the default)")
    way.add_argument("--down", action="store_true", help="towards what depends on it")
    p.add_argument("--depth", type=int, default=5, help="levels to follow (default 5)")

    p = command(
        sub,
        "impact",
        _impact,
        "the live model versions (with their evaluation results) and deployments downstream",
    )
    p.add_argument("id", help="e.g. a dataset version: dataset:demo-llm/web-corpus@v2")
    add_json_option(p)

    p = command(sub, "whois", _whois, "what a local file is and where it came from")
    p.add_argument("path", help="a local file, e.g. ./checkpoints/step-1000.pt (hashed here)")
    p.add_argument("--algorithm", default="sha256", help="hash algorithm (default sha256)")
    p.add_argument("--depth", type=int, default=5, help="upstream depth to show")
    add_json_option(p, "report")
