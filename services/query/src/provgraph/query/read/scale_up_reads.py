"""The read of `scale-up`: the `ScaleUpReads` port, and `ScaleUpReader`, its adapter over
Neo4j with its Cypher: a run, the pilot it names (`SCALED_FROM`) and what is one step upstream
of each, as `compare` reads runs (`read.compare_reads.compared_run`), in one round trip. Their
metric series are `SeriesReads`'."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.compare_reads import compared_run
from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import PLACEHOLDER, public_deep

# The live, readable run $id, the id of the pilot it names (whatever the pilot's state), and
# the pilot's record when it is a readable, live run recorded by its own run.started.
SCALE_UP = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {visible("r")} AND {live("r")}
OPTIONAL MATCH (r)-[:{Rel.SCALED_FROM}]->(p:{Label.RUN}:{Label.ENTITY})
WITH r, head(collect(p)) AS p
RETURN {compared_run("r")} AS run, p.id AS pilot_id,
  CASE WHEN p IS NOT NULL AND {visible("p")} AND {live("p")}
    AND coalesce(p.{PLACEHOLDER}, false) = false
  THEN {compared_run("p")} END AS pilot
"""


@dataclass(frozen=True)
class ScaleUpPair:
    """A run and its pilot, each a `compare` record ({run, experiment, inputs, environments,
    bases, resumes}, stored properties without version stamps).

    `pilot_id` is the id the run's `scaled_from` names (None: the run names no pilot);
    `pilot` is None when that run was never recorded (a placeholder), was deleted or is not
    readable."""

    run: dict[str, Any]
    pilot_id: str | None
    pilot: dict[str, Any] | None


class ScaleUpReads(Protocol):
    """What `recipes.scale_up.ScaleUps` reads, in the caller's `Scope` (a run of an unreadable
    project is a missing one)."""

    def scale_up_pair(self, run: str, scope: Scope) -> ScaleUpPair | None:
        """`run` and the pilot it scales up; None when the run is missing, deleted or not
        readable."""


class ScaleUpReader:
    """`ScaleUpReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def scale_up_pair(self, run: str, scope: Scope) -> ScaleUpPair | None:
        """`run` and its pilot, or None."""
        found = self._session.run(SCALE_UP, {**scope_params(scope), "id": run})
        if not found:
            return None
        (record,) = found
        pilot = record["pilot"]
        return ScaleUpPair(
            run=public_deep(record["run"]),
            pilot_id=record["pilot_id"],
            pilot=None if pilot is None else public_deep(pilot),
        )
