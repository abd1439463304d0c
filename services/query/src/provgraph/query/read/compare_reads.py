"""The read of `compare` over Neo4j: an experiment's runs and named runs, one round trip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import scope_params
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.storage import public_deep


@dataclass(frozen=True)
class ComparedRuns:
    """What the compare read found.

    `runs` holds first the experiment's runs (`members` of them, highest numbers first), then
    the named runs that are not among them; each record is {run, experiment, inputs,
    environments, bases, resumes} of stored properties without version stamps.
    """

    experiment_found: bool
    members: int
    runs: list[dict[str, Any]]


class CompareReads:
    """The compare read of one request, bound to its scope (the `CompareSource` port)."""

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope_params(scope)

    def compared_runs(self, experiment: str | None, ids: Sequence[str], limit: int) -> ComparedRuns:
        """The live runs of `experiment` (at most `limit`) and the runs `ids`."""
        params = {**self._scope, "experiment": experiment, "ids": list(ids), "limit": limit}
        (record,) = self._session.run(cypher.COMPARE_RUNS, params)
        return ComparedRuns(
            experiment_found=bool(record["experiment_found"]),
            members=int(record["member_count"]),
            runs=[public_deep(r) for r in record["runs"]],
        )
