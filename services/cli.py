"""The `provgraph` command line: one sub-command group per area, each registered by its module."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from provgraph import __version__

# Modules that contribute sub-commands: each has `register(subparsers)`, and every parser it
# adds sets `func` (args -> exit code) as its default.
_AREAS = (
    "provgraph.infra.cli",
    "provgraph.infra.apps_cli",
    "provgraph.demo",
    "provgraph.authz.cli",
    "provgraph.ingest.cli",
    "provgraph.query.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="provgraph", description="Event-sourced lineage for ML and LLM training."
    )
    parser.add_argument("--version", action="version", version=f"provgraph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue  # an area not built yet
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from provgraph.infra.errors import InfraError

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
