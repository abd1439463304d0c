"""The Cypher of reproduce and diff: what one run, one artifact and a derivation chain hold.

Every MATCH names its labels and its relationship types from the graph model, and every node
passes the caller's scope (`$projects`, null = every project) in the MATCH itself, so a node of
an unreadable project is never returned nor traversed. Values travel only as parameters.
"""

from __future__ import annotations

from provgraph.schemas.graph import Label, Rel

# A derivation chain longer than this is cut (bounded traversal, like every other one).
DERIVATION_DEPTH = 10


def _scoped(var: str) -> str:
    return f"($projects IS NULL OR {var}.project IN $projects)"


def _kind(var: str) -> str:
    return f"[l IN labels({var}) WHERE l <> '{Label.ENTITY}'][0]"


def _runs_of(var: str, out: str) -> str:
    """The ids of the runs that generated `var`, as a COLLECT subquery."""
    return (
        f"COLLECT {{ MATCH ({var})-[:{Rel.GENERATED_BY}]->({out}:{Label.RUN}:{Label.ENTITY}) "
        f"WHERE {_scoped(out)} RETURN {out}.id ORDER BY {out}.id }}"
    )


# One node of any lineage type, its producing run(s) and the checkpoint it was exported from.
ARTIFACT = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {_scoped("n")}
RETURN {_kind("n")} AS type, properties(n) AS props,
       {_runs_of("n", "r")} AS runs,
       COLLECT {{
         MATCH (n)-[:{Rel.EXPORTED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY})
         WHERE {_scoped("c")}
         RETURN properties(c) ORDER BY c.id
       }} AS exported
"""

# A run and everything one step upstream of it that a recipe or a diff needs.
RUN = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {_scoped("r")}
RETURN properties(r) AS run,
  COLLECT {{
    MATCH (r)-[u:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
    WHERE {_scoped("d")}
    RETURN {{role: u.role, id: d.id}} AS input ORDER BY input.role, input.id
  }} AS inputs,
  COLLECT {{
    MATCH (r)-[:{Rel.RAN_IN}]->(e:{Label.ENVIRONMENT}:{Label.ENTITY})
    WHERE {_scoped("e")}
    RETURN properties(e) ORDER BY e.id
  }} AS environments,
  COLLECT {{
    MATCH (r)-[:{Rel.STARTED_FROM}]->(b:{Label.ENTITY})
    WHERE (b:{Label.MODEL_VERSION} OR b:{Label.CHECKPOINT}) AND {_scoped("b")}
    RETURN {{type: {_kind("b")}, props: properties(b), runs: {_runs_of("b", "br")}}} AS base
    ORDER BY base.props.id
  }} AS bases,
  COLLECT {{
    MATCH (r)-[:{Rel.RESUMED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY})
    WHERE {_scoped("c")}
    RETURN {{props: properties(c), runs: {_runs_of("c", "cr")}}} AS resume
    ORDER BY resume.props.step, resume.props.id
  }} AS resumes
"""

# Dataset versions and every readable version they were derived from (distinct nodes, bounded
# depth; the quantified path only steps onto readable nodes), with the edges among them.
DERIVATION = f"""
UNWIND $ids AS id
MATCH (d:{Label.DATASET_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {_scoped("d")}
OPTIONAL MATCH (d)
  (()-[:{Rel.DERIVED_FROM}]->(x:{Label.DATASET_VERSION}:{Label.ENTITY} WHERE {_scoped("x")}))
  {{1,{DERIVATION_DEPTH}}}
  (u)
WITH collect(DISTINCT d) + collect(DISTINCT u) AS found
UNWIND found AS n
WITH collect(DISTINCT n) AS ns
UNWIND ns AS s
OPTIONAL MATCH (s)-[t:{Rel.DERIVED_FROM}]->(o:{Label.DATASET_VERSION}:{Label.ENTITY})
WHERE o IN ns
WITH ns, collect(
  CASE WHEN o IS NULL THEN null ELSE {{src: s.id, dst: o.id, transform: t.transform}} END
) AS edges
RETURN [n IN ns | properties(n)] AS nodes, edges
"""
