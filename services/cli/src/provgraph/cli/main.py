"""The `provgraph` command line: one sub-command group per area, each registered by its module."""

from __future__ import annotations

import argparse
import logging
import os
import select
import sys
from collections.abc import Sequence

from provgraph.authz import cli as authz_cli
from provgraph.cli import demo, infra, services
from provgraph.cli.errors import explain
from provgraph.ingest import cli as ingest_cli
from provgraph.query import (
    best_env_cli,
    checkpoints_cli,
    compare_cli,
    compliance_cli,
    cost_cli,
    dossier_cli,
    export_cli,
    guards_cli,
    lessons_cli,
    records_cli,
    retention_cli,
    scale_up_cli,
    team_cli,
)
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
    lessons_cli,
    guards_cli,
    best_env_cli,
    team_cli,
    cost_cli,
    scale_up_cli,
    checkpoints_cli,
    retention_cli,
    dossier_cli,
    export_cli,
    compliance_cli,
    records_cli,
)
# Libraries whose warnings (retries, reconnects) a one-shot command explains in one line instead.
_DRIVER_LOGGERS = ("neo4j", "kafka")
READER_GONE = 141
"""The exit code when the reader of stdout went away (`provgraph env-diff A B | head -3`):
128 + SIGPIPE, what a shell reports for a Unix tool that signal ends (`yes | head -1`), so
that `set -o pipefail` sees provgraph as it sees them, apart from its own 1, 2 and 3."""


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
    is one line on stderr and an exit code, never a traceback. When the reader of stdout
    goes away, the command stops there, silently, with `READER_GONE`."""
    try:
        try:
            code = _run(argv)
        except SystemExit:  # argparse's --help, --version and usage errors
            _flush_stdout()
            raise
        _flush_stdout()
        return code
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a socket's, not stdout's: a failure worth its traceback
        _discard_stdout()
        return READER_GONE


def _run(argv: Sequence[str] | None) -> int:
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


def _flush_stdout() -> None:
    """Write what is still buffered now, inside `main`'s guard: a reader gone shows here, not
    as "Exception ignored" when the interpreter flushes stdout at exit."""
    if sys.stdout is not None:  # None when started without a descriptor 1
        sys.stdout.flush()


def _stdout_closed() -> bool:
    """True when stdout is a pipe or socket nobody reads any more: polling it reports an
    error or a hang-up (True where it cannot be polled: a broken pipe is then stdout's)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
    except (AttributeError, OSError, ValueError):
        return True
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _discard_stdout() -> None:
    """Point stdout's descriptor at the null device, so that the interpreter's last flush
    of what the command left buffered writes nowhere instead of failing again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # no descriptor of its own: nothing is flushed to one at exit
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


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
