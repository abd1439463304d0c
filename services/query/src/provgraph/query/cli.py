"""`provgraph reproduce | diff | trace | whois`: provenance questions from the terminal.

Each command reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project
readable. Exit codes: 0 answered, 1 not found, 2 invalid argument, 3 Neo4j unavailable.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from neo4j import Driver
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from provgraph.core.errors import NotFoundError, ProvgraphError, UnavailableError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Direction, Scope
from provgraph.query.read.reader import GraphReader
from provgraph.query.recipes.service import Recipes
from provgraph.query.recipes.trace import render_tree
from provgraph.query.recipes.whois import ProgressLine, hash_file, render_whois, whois_report
from provgraph.query.settings import QuerySettings

NOT_FOUND, INVALID, UNAVAILABLE = 1, 2, 3


@contextmanager
def _connect() -> Iterator[tuple[Driver, QuerySettings]]:
    settings = QuerySettings()
    driver = settings.neo4j_driver()
    try:
        yield driver, settings
    finally:
        driver.close()


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Expected failures as one line on stderr and an exit code, never a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except InvalidArgumentError as exc:
            print(f"provgraph: {exc.code}: {exc.message}", file=sys.stderr)
            return INVALID
        except (ServiceUnavailable, SessionExpired, UnavailableError) as exc:
            print(f"provgraph: {UnavailableError.code}: Neo4j: {exc}", file=sys.stderr)
            return UNAVAILABLE
        except ProvgraphError as exc:
            print(f"provgraph: {exc.code}: {exc.message}", file=sys.stderr)
            return INVALID

    return run


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _not_found(what: str) -> int:
    print(f"provgraph: {NotFoundError.code}: {what}", file=sys.stderr)
    return NOT_FOUND


def _reproduce(args: argparse.Namespace) -> int:
    with _connect() as (driver, settings):
        recipe = Recipes(driver, settings.neo4j_database, timeout_s=settings.read_timeout_s)
        answer = recipe.reproduce(args.id, Scope.everything())
    if answer is None:
        return _not_found(args.id)
    _print_json(answer)
    return 0


def _diff(args: argparse.Namespace) -> int:
    with _connect() as (driver, settings):
        recipe = Recipes(driver, settings.neo4j_database, timeout_s=settings.read_timeout_s)
        answer = recipe.diff(args.a, args.b, Scope.everything())
    if answer is None:
        return _not_found(f"{args.a} or {args.b}")
    _print_json(answer)
    return 0


def _trace(args: argparse.Namespace) -> int:
    direction = Direction.DOWNSTREAM if args.down else Direction.UPSTREAM
    with _connect() as (driver, settings):
        if not 1 <= args.depth <= settings.lineage_max_depth:
            raise InvalidArgumentError(f"--depth must be 1..{settings.lineage_max_depth}")
        reader = GraphReader(driver, settings.neo4j_database, settings)
        lineage = reader.lineage(args.id, Scope.everything(), direction=direction, depth=args.depth)
    if lineage is None:
        return _not_found(args.id)
    print(render_tree(lineage, direction))
    return 0


def _whois(args: argparse.Namespace) -> int:
    try:
        checksum = hash_file(args.path, args.algorithm, progress=ProgressLine())
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read {args.path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc
    scope = Scope.everything()
    with _connect() as (driver, settings):
        reader = GraphReader(driver, settings.neo4j_database, settings)
        matches = reader.artifact(scope, checksum=checksum)
        chains = {m.id: reader.lineage(m.id, scope, depth=args.depth) for m in matches}
    report = whois_report(args.path, checksum, matches, chains)
    if args.json:
        _print_json(report)
    else:
        print(render_whois(report))
    return 0 if report["found"] else NOT_FOUND


def register(sub: Any) -> None:
    """Add the query commands to the `provgraph` parser."""
    p = sub.add_parser("reproduce", help="the complete recipe of a model version or checkpoint")
    p.add_argument("id", help="a model version or checkpoint id")
    p.set_defaults(func=_guarded(_reproduce))

    p = sub.add_parser("diff", help="what changed between two runs or two model versions")
    p.add_argument("a")
    p.add_argument("b")
    p.set_defaults(func=_guarded(_diff))

    p = sub.add_parser("trace", help="the lineage of a node as a tree")
    p.add_argument("id")
    way = p.add_mutually_exclusive_group()
    way.add_argument("--up", action="store_true", help="towards the sources (the default)")
    way.add_argument("--down", action="store_true", help="towards what depends on it")
    p.add_argument("--depth", type=int, default=5)
    p.set_defaults(func=_guarded(_trace))

    p = sub.add_parser("whois", help="what a local file is and where it came from")
    p.add_argument("path")
    p.add_argument("--algorithm", default="sha256", help="hash algorithm (default sha256)")
    p.add_argument("--depth", type=int, default=5, help="upstream depth to show")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_guarded(_whois))
