"""The sub-commands of the `provgraph` command line, as every part adds its own.

Each part's `register(sub)` adds its commands to the parser's sub-parsers; the command line's
main runs the one asked with its parsed arguments (`args.func(args)`) and exits with the code
it returns.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

Run = Callable[[argparse.Namespace], int]
"""What a sub-command does with its arguments: the process's exit code."""


def command(sub: Any, name: str, run: Run, help: str) -> argparse.ArgumentParser:
    """Add the sub-command `name` (described by `help`), which runs `run`; its parser, for the
    command's own arguments."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help)
    parser.set_defaults(func=run)
    return parser
