"""What the query commands of the command line share: an answer printed for people or, with
`--json`, as the recipe's JSON (indented, unicode kept); the one-line "not found" on stderr and
its exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from provgraph.core.errors import NotFoundError

NOT_FOUND = 1
"""The exit code of a question about something absent (or, for a command, not there at all)."""

Answer = dict[str, Any]


def add_json_option(parser: Any, what: str = "answer") -> None:
    """The `--json` flag of a command (`parser`: a subparser or an argument group)."""
    parser.add_argument("--json", action="store_true", help=f"print the {what} as JSON")


def print_json(answer: Answer) -> None:
    """The answer as JSON, on stdout."""
    print(json.dumps(answer, indent=2, ensure_ascii=False))


def print_answer(answer: Answer, as_json: bool, render: Callable[[Answer], str]) -> None:
    """The answer as JSON when asked, else as `render` puts it for people."""
    if as_json:
        print_json(answer)
    else:
        print(render(answer))


def not_found(what: str) -> int:
    """Say on stderr that `what` was not found; the command's exit code."""
    print(f"provgraph: {NotFoundError.code}: {what}", file=sys.stderr)
    return NOT_FOUND
