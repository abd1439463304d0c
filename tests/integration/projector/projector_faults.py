"""Fault injection for the projector tests: the Neo4j writer with hooks, and a projector
process that pauses at a chosen hook so a test can SIGKILL it right there.

Run as a script, it is `provgraph projector` (the production wiring, `run_projector`) with the
hooked writer in place of the plain one:

    python projector_faults.py --topic T --pause-at inside_neo4j_tx:3 --marker /tmp/paused

The n-th call of the hook creates the marker file and then sleeps until the process is killed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from neo4j import Driver, ManagedTransaction

from provgraph.ingest.ports import PartitionOffset
from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projector.run import run_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings

log = logging.getLogger("provgraph.ingest.projector")

HOOKS = ("after_neo4j_commit", "inside_neo4j_tx")


@dataclass
class Hooks:
    """Called at the moments where a crash matters most."""

    after_neo4j_commit: Callable[[], None] = lambda: None
    # After every statement of a batch ran, before the transaction commits.
    inside_neo4j_tx: Callable[[], None] = lambda: None

    @classmethod
    def pause_at(cls, spec: str, marker: Path) -> Hooks:
        """`<hook>:<n>`: the n-th call of that hook writes `marker` and sleeps until killed."""
        name, _, count = spec.partition(":")
        if name not in HOOKS:
            raise ValueError(f"--pause-at: unknown hook {name!r}")
        return cls(**{name: _pause_on_call(int(count or 1), marker)})


def _pause_on_call(n: int, marker: Path) -> Callable[[], None]:
    calls = 0

    def pause() -> None:
        nonlocal calls
        calls += 1
        if calls == n:
            marker.write_text(str(os.getpid()))
            log.warning("fault injection: paused at call %d, waiting to be killed", n)
            while True:  # only SIGKILL ends this; the point is to die right here
                time.sleep(60)

    return pause


class HookedWriter(GraphWriter):
    """The Neo4j writer with a hook just before its transaction commits and one just after."""

    def __init__(self, driver: Driver, hooks: Hooks, database: str = "neo4j") -> None:
        super().__init__(driver, database)
        self.hooks = hooks

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        applied = super().write(changes, offsets)
        self.hooks.after_neo4j_commit()  # committed in Neo4j, not yet in Kafka
        return applied

    def _write_tx(  # type: ignore[override]
        self, tx: ManagedTransaction, changes: list[EventMutations], offsets: list[PartitionOffset]
    ) -> int:
        applied = GraphWriter._write_tx(tx, changes, offsets)
        self.hooks.inside_neo4j_tx()
        return applied


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="a projector that pauses at a hook")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--pause-at", required=True, help="<hook>:<n>, hook: " + ", ".join(HOOKS))
    parser.add_argument("--marker", required=True, type=Path, help="written when paused")
    args = parser.parse_args(argv)
    hooks = Hooks.pause_at(args.pause_at, args.marker)
    settings = IngestSettings(events_topic=args.topic)
    stats = run_projector(
        settings, writer=lambda driver: HookedWriter(driver, hooks, settings.neo4j_database)
    )
    print(f"projector: {stats}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
