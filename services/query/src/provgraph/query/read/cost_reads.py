"""The read of `cost` for a model version: the `CostReads` port, and `CostReader`, its adapter
over Neo4j with its Cypher: where a model version came from (its producing run, that run's
experiment, the model version it started from, and how many runs started from that one).
The runs themselves, with their lifecycle, resources and checkpoints, are the checkpoint
advice's read (`read.digest_reads.DigestReads.advice_runs`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel

# A model version's origin: its producing run (if readable), the run's experiment, the model
# version the run started from and the live runs that started from that one.
MODEL_ORIGIN = f"""
MATCH (m:{Label.MODEL_VERSION}:{Label.ENTITY} {{id: $id}})
WHERE {visible("m")}
OPTIONAL MATCH (m)-[:{Rel.GENERATED_BY}]->(r:{Label.RUN}:{Label.ENTITY})
WHERE {visible("r")}
WITH m, head(collect(r)) AS r
OPTIONAL MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
WHERE {visible("x")}
OPTIONAL MATCH (r)-[:{Rel.STARTED_FROM}]->(b:{Label.MODEL_VERSION}:{Label.ENTITY})
WHERE {visible("b")}
WITH m, r, head(collect(DISTINCT x.id)) AS experiment, head(collect(DISTINCT b)) AS b
RETURN r.id AS run, experiment, b.id AS base,
  CASE WHEN b IS NULL THEN 0 ELSE COUNT {{
    MATCH (u:{Label.RUN}:{Label.ENTITY})-[:{Rel.STARTED_FROM}]->(b)
    WHERE {visible("u")} AND {live("u")} }} END AS base_users
"""


@dataclass(frozen=True)
class ModelOrigin:
    """Where a model version came from: its producing run, the run's experiment, the model
    version the run started from, and how many live runs started from that one (the run
    included); each None (0) when absent or not readable."""

    run: str | None
    experiment: str | None
    base: str | None
    base_users: int


class CostReads(Protocol):
    """What `recipes.cost.Costs` reads beside the runs, in the caller's `Scope`."""

    def model_origin(self, model_version: str, scope: Scope) -> ModelOrigin | None:
        """The origin of `model_version`; None when it is missing or not readable."""


class CostReader:
    """`CostReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def model_origin(self, model_version: str, scope: Scope) -> ModelOrigin | None:
        """The origin of `model_version`, or None."""
        found = self._session.run(MODEL_ORIGIN, {**scope_params(scope), "id": model_version})
        if not found:
            return None
        (record,) = found
        return ModelOrigin(
            run=record["run"],
            experiment=record["experiment"],
            base=record["base"],
            base_users=int(record["base_users"]),
        )
