"""The reads of reproduce and diff: the `RecipeReads` port, and `RecipeReader`, its adapter over
Neo4j with its Cypher (one round trip per call): one artifact, one run, a derivation chain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import kind, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import public_deep

Record = Mapping[str, Any]

DERIVATION_DEPTH = 10
"""A derivation chain longer than this is cut (bounded, like every other traversal)."""


def _runs_of(var: str, out: str) -> str:
    """The ids of the runs that generated `var`, as a COLLECT subquery."""
    return (
        f"COLLECT {{ MATCH ({var})-[:{Rel.GENERATED_BY}]->({out}:{Label.RUN}:{Label.ENTITY}) "
        f"WHERE {visible(out)} RETURN {out}.id ORDER BY {out}.id }}"
    )


# One node of any lineage type, its producing run(s) and the checkpoint it was exported from.
RECIPE_ARTIFACT = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
RETURN {kind("n")} AS type, properties(n) AS props, {_runs_of("n", "r")} AS runs,
  COLLECT {{
    MATCH (n)-[:{Rel.EXPORTED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY}) WHERE {visible("c")}
    RETURN properties(c) ORDER BY c.id
  }} AS exported
"""

# A run and everything one step upstream of it that a recipe or a diff needs.
RECIPE_RUN = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {visible("r")}
RETURN properties(r) AS run,
  COLLECT {{
    MATCH (r)-[u:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY}) WHERE {visible("d")}
    RETURN {{role: u.role, id: d.id}} AS input ORDER BY input.role, input.id
  }} AS inputs,
  COLLECT {{
    MATCH (r)-[:{Rel.RAN_IN}]->(e:{Label.ENVIRONMENT}:{Label.ENTITY}) WHERE {visible("e")}
    RETURN properties(e) ORDER BY e.id
  }} AS environments,
  COLLECT {{
    MATCH (r)-[:{Rel.STARTED_FROM}]->(b:{Label.ENTITY})
    WHERE (b:{Label.MODEL_VERSION} OR b:{Label.CHECKPOINT}) AND {visible("b")}
    RETURN {{type: {kind("b")}, props: properties(b), runs: {_runs_of("b", "br")}}} AS base
    ORDER BY base.props.id
  }} AS bases,
  COLLECT {{
    MATCH (r)-[:{Rel.RESUMED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY}) WHERE {visible("c")}
    RETURN {{props: properties(c), runs: {_runs_of("c", "cr")}}} AS resume
    ORDER BY resume.props.step, resume.props.id
  }} AS resumes
"""

# Dataset versions and every readable version they were derived from (distinct nodes, bounded
# depth; the quantified path only steps onto readable nodes), with the edges among them.
DERIVATION = f"""
UNWIND $ids AS id
MATCH (d:{Label.DATASET_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {visible("d")}
OPTIONAL MATCH (d)
  (()-[:{Rel.DERIVED_FROM}]->(x:{Label.DATASET_VERSION}:{Label.ENTITY} WHERE {visible("x")}))
  {{1,{DERIVATION_DEPTH}}}
  (u)
WITH collect(DISTINCT d) + collect(DISTINCT u) AS found
UNWIND found AS n
WITH collect(DISTINCT n) AS ns
UNWIND ns AS s
OPTIONAL MATCH (s)-[t:{Rel.DERIVED_FROM}]->(o:{Label.DATASET_VERSION}:{Label.ENTITY})
WHERE o IN ns
WITH ns, collect(
  CASE WHEN o IS NULL THEN null
       ELSE {{src: s.id, dst: o.id, transform: t.transform, weight: t.weight}} END
) AS edges
RETURN [n IN ns | properties(n)] AS nodes, edges
"""


class RecipeReads(Protocol):
    """What `recipes.service.Recipes` reads. Records are plain maps of stored properties,
    without the internal version stamps at any depth; every method takes the caller's `Scope`:
    an unreadable node is a missing node and is never traversed."""

    def artifact(self, node_id: str, scope: Scope) -> Record | None:
        """A node of any lineage type: {type, props, runs (the ids of the runs that generated
        it), exported (the checkpoints it was exported from)}; None when absent."""

    def run(self, run_id: str, scope: Scope) -> Record | None:
        """A run: {run, inputs ({role, id}), environments, bases ({type, props, runs}),
        resumes ({props, runs})}; None when absent."""

    def derivation(self, ids: Sequence[str], scope: Scope) -> tuple[list[Record], list[Record]]:
        """The dataset versions `ids` and those they derive from, at most `DERIVATION_DEPTH`
        steps: (nodes' properties, edges {src, dst, transform, weight})."""


class RecipeReader:
    """`RecipeReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def _read(self, text: str, scope: Scope, **params: Any) -> list[Record]:
        records = self._session.run(text, {**scope_params(scope), **params})
        return [public_deep(r.data()) for r in records]

    def artifact(self, node_id: str, scope: Scope) -> Record | None:
        """A node of any lineage type: {type, props, runs (that generated it), exported}."""
        found = self._read(RECIPE_ARTIFACT, scope, id=node_id)
        return found[0] if found else None

    def run(self, run_id: str, scope: Scope) -> Record | None:
        """A run: {run, inputs, environments, bases, resumes}."""
        found = self._read(RECIPE_RUN, scope, id=run_id)
        return found[0] if found else None

    def derivation(self, ids: Sequence[str], scope: Scope) -> tuple[list[Record], list[Record]]:
        """The dataset versions `ids` and those they derive from: (nodes, edges)."""
        found = self._read(DERIVATION, scope, ids=list(ids))
        if not found:
            return [], []
        return list(found[0]["nodes"]), list(found[0]["edges"])
