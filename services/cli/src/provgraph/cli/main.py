"""The `provgraph` command line: one sub-command group per area, each registered by its module."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from provgraph.authz import cli as authz_cli
from provgraph.cli import demo, infra, services
from provgraph.cli.errors import explain
from provgraph.ingest import cli as ingest_cli
from provgraph.query import best_env_cli, compare_cli, team_cli
from provgraph.query import cli as query_cli
from provgraph.schemas.version import __version__

# Modules that contribute sub-commands: each has `register(subparsers)`, and every parser it
# adds sets `func` (args -> exit code) as its default.
_AREAS = (
    infra,
    services,
    demo,
    authz_cli,
    ingest_cli,
    query_cli,
    compare_cli,
    best_env_cli,
    team_cli,
)
# Libraries whose warnings (retries, reconnects) a one-shot command explains in one line instead.
_DRIVER_LOGGERS = ("neo4j", "kafka")


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
    """Run one command; a known failure (a missing setting, a server that does not answer)
    is one line on stderr and an exit code, never a traceback."""
    args = build_parser().parse_args(argv)
    _quiet_driver_logs()
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        failure = explain(exc)
        if failure is None:
            raise
        print(f"provgraph: {failure.message}", file=sys.stderr)
        return failure.code
    return code


def _quiet_driver_logs() -> None:
    """Without any logging set up, Python prints a library's warnings raw to stderr (the Neo4j
    driver's "Transaction failed and will be retried" lines); a null handler stops that. A
    command that sets up logging (the projector) still gets them through the root logger."""
    for name in _DRIVER_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


if __name__ == "__main__":
    sys.exit(main())
