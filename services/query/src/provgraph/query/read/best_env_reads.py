"""The reads of `best`, `env-diff` and `runs-with`: the `BestEnvReads` port, and
`BestEnvReader`, its adapter over Neo4j with its Cypher (one round trip each)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, rel_visible, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, PROJECT, dotted, public_deep

Record = Mapping[str, Any]

ENV_CHAIN_DEPTH = 20
"""A BASED_ON chain longer than this between two snapshots is not looked for."""

# Every live evaluation of the model's live versions that records $metric_key, with the
# evaluation dataset versions it used: one row per evaluation, at most $fetch.
BEST_EVALUATIONS = f"""
MATCH (m:{Label.MODEL}:{Label.ENTITY} {{id: $model}})
WHERE {visible("m")}
RETURN m.id AS model, COLLECT {{
    MATCH (m)<-[:{Rel.VERSION_OF}]-(v:{Label.MODEL_VERSION}:{Label.ENTITY})
          <-[:{Rel.EVALUATED}]-(e:{Label.EVALUATION}:{Label.ENTITY})
    WHERE {visible("v")} AND {live("v")} AND {visible("e")} AND {live("e")}
      AND e[$metric_key] IS NOT NULL
    RETURN {{version: v.id, label: v.version, status: v.status,
             registered_at: coalesce(v.registered_at, v.{FIRST_SEEN_AT}),
             evaluation: e.id, suite: e.suite, suite_version: e.suite_version,
             evaluated_at: coalesce(e.evaluated_at, e.{FIRST_SEEN_AT}),
             value: e[$metric_key],
             datasets: COLLECT {{
                 MATCH (e)-[:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
                 WHERE {visible("d")}
                 RETURN DISTINCT d.id AS dataset ORDER BY dataset }}}} AS row
    ORDER BY row.version, row.evaluation
    LIMIT $fetch
}} AS rows
"""

# Two environment snapshots and the shortest BASED_ON path between them (either way, through
# readable snapshots only), as {nodes, rels}; no path when they are unrelated or the same.
ENV_PAIR = f"""
OPTIONAL MATCH (a:{Label.ENVIRONMENT}:{Label.ENTITY} {{id: $a}}) WHERE {visible("a")}
OPTIONAL MATCH (b:{Label.ENVIRONMENT}:{Label.ENTITY} {{id: $b}}) WHERE {visible("b")}
RETURN properties(a) AS a, properties(b) AS b, COLLECT {{
    MATCH p = SHORTEST 1 (a)
      (()-[r:{Rel.BASED_ON}]-(y:{Label.ENVIRONMENT}:{Label.ENTITY})
       WHERE {rel_visible("r")} AND {visible("y")}){{1,{ENV_CHAIN_DEPTH}}}(b)
    WHERE a <> b
    RETURN {{nodes: [n IN nodes(p) | properties(n)],
             rels: [s IN relationships(p) | {{src: startNode(s).id, dst: endNode(s).id}}]}}
}} AS paths
"""

# The runs that ran in a snapshot recording one of $keys (the flattened `package.<name>`,
# `framework.<name>`... properties), at $version when given, oldest first, at most $fetch.
RUNS_WITH = f"""
MATCH (e:{Label.ENVIRONMENT}:{Label.ENTITY})
WHERE {visible("e")} AND ($project IS NULL OR e.{PROJECT} = $project)
WITH e, [k IN $keys WHERE e[k] IS NOT NULL | {{key: k, version: toString(e[k])}}] AS hits
WHERE size(hits) > 0 AND ($version IS NULL OR any(h IN hits WHERE h.version = $version))
MATCH (r:{Label.RUN}:{Label.ENTITY})-[:{Rel.RAN_IN}]->(e)
WHERE {visible("r")} AND {live("r")}
WITH r, e, hits
ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}), r.id
LIMIT $fetch
RETURN r {{.id, .{PROJECT}, .name, .run_number, .status, .started_at, .ended_at}} AS run,
       e.id AS environment, hits,
       head(COLLECT {{
           MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
           WHERE {visible("x")} RETURN x.id ORDER BY x.id LIMIT 1 }}) AS experiment
"""


class BestEnvReads(Protocol):
    """What `recipes.best_env_service.BestAndEnvironments` reads. Records are plain maps of
    stored properties, without the internal version stamps at any depth; every method takes
    the caller's `Scope`: what the caller may not read does not exist."""

    def evaluations(self, model: str, metric: str, fetch: int, scope: Scope) -> list[Record] | None:
        """The evaluation rows of `model` that record `metric` (at most `fetch`), by version
        and evaluation: {version, label, status, registered_at, evaluation, suite,
        suite_version, evaluated_at, value, datasets}; None when the model is missing."""

    def environment_pair(self, a: str, b: str, scope: Scope) -> Record:
        """{a, b, paths}: both snapshots' properties (None when missing) and the BASED_ON
        path between them ({nodes, rels}; none when unrelated)."""

    def runs_with(
        self,
        keys: Sequence[str],
        version: str | None,
        project: str | None,
        fetch: int,
        scope: Scope,
    ) -> list[Record]:
        """Rows {run, environment, hits, experiment} of the runs whose environment stores a
        version under one of `keys` (equal to `version` when given), oldest first."""


class BestEnvReader:
    """`BestEnvReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def _read(self, text: str, scope: Scope, **params: Any) -> list[Record]:
        records = self._session.run(text, {**scope_params(scope), **params})
        return [public_deep(r.data()) for r in records]

    def evaluations(self, model: str, metric: str, fetch: int, scope: Scope) -> list[Record] | None:
        """The evaluation rows of `model` that record `metric` (at most `fetch`)."""
        found = self._read(
            BEST_EVALUATIONS, scope, model=model, metric_key=dotted("metric", metric), fetch=fetch
        )
        return list(found[0]["rows"]) if found else None

    def environment_pair(self, a: str, b: str, scope: Scope) -> Record:
        """{a, b, paths} of two snapshots."""
        return self._read(ENV_PAIR, scope, a=a, b=b)[0]

    def runs_with(
        self,
        keys: Sequence[str],
        version: str | None,
        project: str | None,
        fetch: int,
        scope: Scope,
    ) -> list[Record]:
        """The runs whose environment stores a version under one of `keys`."""
        return self._read(
            RUNS_WITH, scope, keys=list(keys), version=version, project=project, fetch=fetch
        )
