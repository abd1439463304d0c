"""`provgraph scale-up RUN`: a run beside the pilot it scales up (`scaled_from`): the resources
of each and the scale factor, every other setting that differs (flagged: a scale-up should
change only the scale), and whether the pilot's metric trend held (`recipes/scale_up.py`).

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Exit codes: 0 answered, 1 not found, 2 invalid argument (a run
that names no pilot).
"""

from __future__ import annotations

import argparse
from typing import Any

from provgraph.core.commands import command
from provgraph.core.errors import NotFoundError
from provgraph.query.connect import command_services
from provgraph.query.read.model import Scope
from provgraph.query.recipes.scale_up import render_scale_up
from provgraph.query.terminal import add_json_option, not_found, print_answer


def _scale_up(args: argparse.Namespace) -> int:
    with command_services() as services:
        try:
            answer = services.scale_ups().scale_up(args.run, Scope.everything())
        except NotFoundError as exc:
            return not_found(exc.message)
    print_answer(answer, args.json, render_scale_up)
    return 0


def register(sub: Any) -> None:
    """Add `scale-up` to the `provgraph` parser."""
    p = command(
        sub,
        "scale-up",
        _scale_up,
        "a scale-up beside its pilot: resources, other changes (flagged), the metric trend",
    )
    p.add_argument("run", metavar="RUN", help="a run that names its pilot, e.g. run:demo-scale-big")
    add_json_option(p)
