"""The read of `compare`: the `CompareReads` port, and `CompareReader`, its adapter over Neo4j
with its Cypher: an experiment's runs and named runs, one round trip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import kind, live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, json_key, public_deep

GATES_KEY = json_key("quality_gates")
"""A dataset version's quality gates as stored JSON text (`recipes.data_gates`)."""


def compared_run(r: str) -> str:
    """A run of `compare` and what is one step upstream of it (pattern comprehensions: one
    row per query whatever the number of runs, every neighbour visible)."""
    return f"""{{run: properties({r}),
  experiment: head([({r})-[:{Rel.PART_OF}]->(cx:{Label.EXPERIMENT}:{Label.ENTITY})
    WHERE {visible("cx")} | cx.id]),
  inputs: [({r})-[cu:{Rel.USED}]->(cd:{Label.DATASET_VERSION}:{Label.ENTITY})
    WHERE {visible("cd")} | {{role: cu.role, id: cd.id, gates: cd.{GATES_KEY}}}],
  environments: [({r})-[:{Rel.RAN_IN}]->(ce:{Label.ENVIRONMENT}:{Label.ENTITY})
    WHERE {visible("ce")} | properties(ce)],
  bases: [({r})-[:{Rel.STARTED_FROM}]->(cb:{Label.ENTITY})
    WHERE (cb:{Label.MODEL_VERSION} OR cb:{Label.CHECKPOINT}) AND {visible("cb")}
    | {{id: cb.id, type: {kind("cb")}}}],
  resumes: [({r})-[:{Rel.RESUMED_FROM}]->(cc:{Label.CHECKPOINT}:{Label.ENTITY})
    WHERE {visible("cc")} | {{id: cc.id, step: cc.step,
      run: head([(cc)-[:{Rel.GENERATED_BY}]->(cr:{Label.RUN}:{Label.ENTITY})
        WHERE {visible("cr")} | cr.id])}}]
}}"""


# The runs of `compare`: the live runs of experiment $experiment (the $limit highest numbers)
# and the runs named in $ids, each with its upstream; `member_count` counts the experiment's.
COMPARE_RUNS = f"""
OPTIONAL MATCH (x:{Label.EXPERIMENT}:{Label.ENTITY} {{id: $experiment}})
WHERE {visible("x")}
WITH x,
  COLLECT {{
    MATCH (x)<-[:{Rel.PART_OF}]-(r:{Label.RUN}:{Label.ENTITY})
    WHERE {visible("r")} AND {live("r")}
    RETURN r ORDER BY coalesce(r.run_number, -1) DESC,
      coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id DESC
    LIMIT $limit
  }} AS members,
  COLLECT {{
    MATCH (r:{Label.RUN}:{Label.ENTITY}) WHERE r.id IN $ids AND {visible("r")} RETURN r
  }} AS named
WITH x, members, [r IN named WHERE NOT r IN members] AS extra
RETURN x IS NOT NULL AS experiment_found, size(members) AS member_count,
  [r IN members + extra | {compared_run("r")}] AS runs
"""


# The runs of `effects`: the live runs of project $project that belong to an experiment, the
# $limit latest started (a run not yet started by its first-seen time), each with its upstream.
PROJECT_RUNS = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY})
WHERE r.project = $project AND {visible("r")} AND {live("r")}
  AND EXISTS {{ (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY}) WHERE {visible("x")} }}
WITH r ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id DESC LIMIT $limit
RETURN {compared_run("r")} AS run
"""


@dataclass(frozen=True)
class ComparedRuns:
    """What the compare read found.

    `runs` holds first the experiment's runs (`members` of them, highest numbers first), then
    the named runs that are not among them; each record is {run, experiment, inputs
    ({role, id, gates: the version's quality gates as stored JSON text, or None}),
    environments, bases, resumes} of stored properties without version stamps.
    """

    experiment_found: bool
    members: int
    runs: list[dict[str, Any]]


class CompareReads(Protocol):
    """What `recipes.compare_service.Comparisons` reads, in the caller's `Scope` (like
    `ReadModel`'s: a run or experiment of an unreadable project is a missing one)."""

    def compared_runs(
        self, experiment: str | None, ids: Sequence[str], limit: int, scope: Scope
    ) -> ComparedRuns:
        """The live runs of `experiment` (at most `limit`, highest numbers first) and the runs
        `ids`, each with what is one step upstream of it."""

    def project_runs(self, project: str, limit: int, scope: Scope) -> list[dict[str, Any]]:
        """The live runs of `project` that are part of a (readable) experiment, at most
        `limit`, latest started first (a run without a start by its first-seen time, then
        highest id), as `compared_runs` records them; none when `scope` cannot read it."""


class CompareReader:
    """`CompareReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def compared_runs(
        self, experiment: str | None, ids: Sequence[str], limit: int, scope: Scope
    ) -> ComparedRuns:
        """The live runs of `experiment` (at most `limit`) and the runs `ids`."""
        params = {**scope_params(scope), "experiment": experiment, "ids": list(ids), "limit": limit}
        (record,) = self._session.run(COMPARE_RUNS, params)
        return ComparedRuns(
            experiment_found=bool(record["experiment_found"]),
            members=int(record["member_count"]),
            runs=[public_deep(r) for r in record["runs"]],
        )

    def project_runs(self, project: str, limit: int, scope: Scope) -> list[dict[str, Any]]:
        """The live runs of `project` in an experiment, at most `limit`, latest first."""
        params = {**scope_params(scope), "project": project, "limit": limit}
        return [public_deep(r["run"]) for r in self._session.run(PROJECT_RUNS, params)]
