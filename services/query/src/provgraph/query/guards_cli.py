"""`provgraph lint-metrics | lint-names | collisions --project P`: the guards a project's
conventions set (`recipes/guards.py`): metric names that differ only in spelling, records
whose names break their naming rule, outputs out of place or written by two jobs.

The conventions are declared with `provgraph policy set` (`--metric-alias`, `--name-rule`,
`--storage-root`, `--require-names`, `--require-places`). Reads Neo4j directly
(PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable (`connect.command_readers`).
Exit codes: 0 answered, 1 project not found, 2 invalid argument, 3 with `--check` when the
report found something.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.guards import (
    Guards,
    render_collisions,
    render_lint_metrics,
    render_lint_names,
)
from provgraph.query.terminal import add_json_option, not_found, print_answer

FOUND = 3
Report = Callable[[Guards, str, Scope], dict[str, Any]]


def found(name: str, answer: Mapping[str, Any]) -> bool:
    """Whether report `name`'s answer found something `--check` fails on."""
    if name == "lint-metrics":
        return any(not g["settled"] for g in answer["groups"])
    if name == "lint-names":
        return any(k["breaks"] for k in answer["kinds"])
    return bool(answer["out_of_place"] or answer["shared"])


def _runner(name: str, report: Report, render: Callable[[Mapping[str, Any]], str]) -> Any:
    def run(args: argparse.Namespace) -> int:
        with command_services() as services:
            guards = services.guards()
            try:
                answer = report(guards, args.project, Scope.everything())
            except NotFoundError as exc:
                return not_found(exc.message)
        print_answer(answer, args.json, render)
        return FOUND if args.check and found(name, answer) else 0

    return run


_REPORTS: tuple[tuple[str, Report, Callable[[Mapping[str, Any]], str], str], ...] = (
    (
        "lint-metrics",
        Guards.lint_metrics,
        render_lint_metrics,
        "metric names that differ only in spelling, and the aliases to declare",
    ),
    (
        "lint-names",
        Guards.lint_names,
        render_lint_names,
        "records whose names break the project's naming rules, with the names they should have",
    ),
    (
        "collisions",
        Guards.collisions,
        render_collisions,
        "outputs outside the storage roots or at personal paths, and URIs two jobs wrote",
    ),
)


def register(sub: Any) -> None:
    """Add `lint-metrics`, `lint-names` and `collisions` to the `provgraph` parser."""
    for name, report, render, about in _REPORTS:
        p = command(sub, name, _runner(name, report, render), about)
        p.add_argument("--project", required=True, help="the project, e.g. llm-pretrain")
        p.add_argument(
            "--check", action="store_true", help="exit 3 when the report finds something"
        )
        add_json_option(p)
