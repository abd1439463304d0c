"""`provgraph compliance MODEL_VERSION`: the compliance report of a model version's data, as
text, `--markdown` (for a review or a wiki) or `--json`.

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered (flags or not: the report says them), 1 no
such model version, 2 an id that is not a model version's.
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.query.connect import command_readers
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.ids import checked_id
from provgraph.query.read.model import Scope
from provgraph.query.recipes.compliance import ComplianceReport, render_compliance
from provgraph.query.terminal import add_json_option, not_found, print_answer
from provgraph.schemas import parse_id
from provgraph.schemas.ids import IdKind


def _compliance(args: argparse.Namespace) -> int:
    model_version = checked_id("MODEL_VERSION", args.model_version)
    if parse_id(model_version).kind is not IdKind.MODEL_VERSION:
        raise InvalidArgumentError(
            f"MODEL_VERSION must be a model version id (model:<project>/<name>@<version>), "
            f"got {model_version!r}"
        )
    with command_readers() as (readers, _):
        report = ComplianceReport(readers.compliance, readers.graph)
        answer = report.report(model_version, Scope.everything())
    if answer is None:
        return not_found(model_version)
    print_answer(answer, args.json, lambda a: render_compliance(a, markdown=args.markdown).rstrip())
    return 0


def register(sub: Any) -> None:
    """Add `compliance` to the `provgraph` parser."""
    p = command(
        sub,
        "compliance",
        _compliance,
        "the data a model version was built on, by licence; what lacks one; what was taken down",
    )
    p.add_argument(
        "model_version", metavar="MODEL_VERSION", help="model:<project>/<name>@<version>"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true", help="Markdown, for a review or a wiki")
    add_json_option(out, "report")
