"""`provgraph export --format prov-json|prov-n|prov-xml ID`: the lineage of a node as a W3C PROV
document (`recipes/prov_export.py`), on stdout or in a file (`-o`).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument (a depth
outside 1..PROVGRAPH_LINEAGE_MAX_DEPTH, a file that cannot be written) or a setting missing
or wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from provgraph.core.commands import command
from provgraph.query.connect import command_readers
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.recipes.prov_export import (
    DIRECTIONS,
    FORMATS,
    export_direction,
    exporter,
    serialized,
)
from provgraph.query.terminal import not_found


def _export(args: argparse.Namespace) -> int:
    direction = export_direction(args.direction)
    with command_readers() as (readers, settings):
        found = exporter(readers, settings).export(
            args.id, Scope.everything(), direction=direction, depth=args.depth
        )
    if found is None:
        return not_found(args.id)
    text = serialized(found.document, args.format)
    if found.truncated:
        limit = settings.lineage_default_limit
        print(f"provgraph: truncated: the walk stopped at {limit} nodes", file=sys.stderr)
    if args.output is None:
        print(text)
        return 0
    try:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise InvalidArgumentError(f"cannot write {args.output}: {exc.strerror}") from exc
    return 0


def register(sub: Any) -> None:
    """Add `export` to the `provgraph` parser."""
    p = command(sub, "export", _export, "the lineage of a node as a W3C PROV document")
    p.add_argument(
        "id", help="any node id, e.g. model:demo-llm/chat-1b@1.0.0 or dataset:demo-llm/instruct"
    )
    p.add_argument(
        "--format", choices=list(FORMATS), default="prov-json", help="(default prov-json)"
    )
    towards = "up: towards the sources (the default); down: towards what depends on it"
    p.add_argument("--direction", choices=list(DIRECTIONS), default="up", help=towards)
    p.add_argument("--depth", type=int, default=5, help="levels to follow (default 5)")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write the document to FILE (default: stdout)"
    )
