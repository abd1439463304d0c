"""Test seams of the projector: the moments where a crash matters most, and fault injection.

Nothing here does anything unless a test passes hooks or sets PROVGRAPH_PROJECTOR_PAUSE_AT.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from neo4j import Driver, ManagedTransaction

from provgraph.ingest.projection import EventMutations
from provgraph.ingest.writer import GraphWriter, PartitionOffset

log = logging.getLogger("provgraph.ingest.projector")


@dataclass
class Hooks:
    """Test seams: called at the moments where a crash matters most."""

    after_neo4j_commit: Callable[[], None] = lambda: None
    # After every statement of a batch ran, before the transaction commits.
    inside_neo4j_tx: Callable[[], None] = lambda: None

    @classmethod
    def from_env(cls) -> Hooks:
        """Fault injection for tests of the real process (no effect unless set).

        `PROVGRAPH_PROJECTOR_PAUSE_AT=<hook>:<n>` (hook: `after_neo4j_commit` or
        `inside_neo4j_tx`) makes the n-th call of that hook create the file named by
        `PROVGRAPH_PROJECTOR_PAUSE_MARKER` and then sleep, so that a test can SIGKILL the
        process at exactly that moment.
        """
        spec = os.environ.get("PROVGRAPH_PROJECTOR_PAUSE_AT", "")
        if not spec:
            return cls()
        name, _, count = spec.partition(":")
        if name not in ("after_neo4j_commit", "inside_neo4j_tx"):
            raise ValueError(f"PROVGRAPH_PROJECTOR_PAUSE_AT: unknown hook {name!r}")
        marker = os.environ.get("PROVGRAPH_PROJECTOR_PAUSE_MARKER", "")
        return cls(**{name: _pause_on_call(int(count or 1), marker)})


def _pause_on_call(n: int, marker: str) -> Callable[[], None]:
    calls = 0

    def pause() -> None:
        nonlocal calls
        calls += 1
        if calls == n:
            if marker:
                with open(marker, "w") as file:
                    file.write(str(os.getpid()))
            log.warning("fault injection: paused at call %d, waiting to be killed", n)
            while True:  # only SIGKILL ends this; the point is to die right here
                time.sleep(60)

    return pause


class HookedWriter(GraphWriter):
    """The writer with the `inside_neo4j_tx` seam just before the commit."""

    def __init__(self, driver: Driver, database: str, inside_tx: Callable[[], None]) -> None:
        super().__init__(driver, database)
        self._inside_tx = inside_tx

    def _write_tx(  # type: ignore[override]
        self, tx: ManagedTransaction, changes: list[EventMutations], offsets: list[PartitionOffset]
    ) -> int:
        applied = GraphWriter._write_tx(tx, changes, offsets)
        self._inside_tx()
        return applied
