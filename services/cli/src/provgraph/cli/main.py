"""The `provgraph` command line: one sub-command group per area, each registered by its module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from provgraph.authz import cli as authz_cli
from provgraph.cli import demo, infra, services
from provgraph.infra.errors import InfraError
from provgraph.ingest import cli as ingest_cli
from provgraph.query import cli as query_cli
from provgraph.schemas.version import __version__

# Modules that contribute sub-commands: each has `register(subparsers)`, and every parser it
# adds sets `func` (args -> exit code) as its default.
_AREAS = (infra, services, demo, authz_cli, ingest_cli, query_cli)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="provgraph", description="Event-sourced lineage for ML and LLM training."
    )
    parser.add_argument("--version", action="version", version=f"provgraph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for area in _AREAS:
        area.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except InfraError as exc:
        print(f"provgraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
