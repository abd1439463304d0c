"""The reads of the guards (`lint-metrics`, `lint-names`, `collisions`) and of the metric
aliases that compare, best and effects honour: the `ConventionReads` port, and
`ConventionReader`, its adapter over Neo4j with its Cypher.

- the project's conventions: those of the policy in force (the Project node's policy history,
  `schemas.records.POLICY_RECORDS`: the greatest log version);
- the metric names its runs logged (`metric.<name>`, `final_metric.<name>`) and its
  evaluations recorded, with how many records use each;
- its named records of one kind with the facts a naming rule may name
  (`schemas.conventions.FACTS`);
- its outputs (checkpoints, dataset versions, model versions) with their URI and writer.

Placeholders (ids referenced, never recorded) and deleted records are left out of the last two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.conventions import NO_CONVENTIONS, Conventions, NamedKind, day_of
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.ids import project_id
from provgraph.schemas.records import POLICY_RECORDS
from provgraph.schemas.storage import PLACEHOLDER, parse_json

_RECORDED = f"coalesce(n.{PLACEHOLDER}, false) = false"
_OWN = f"n.project = $project AND {visible('n')} AND {live('n')} AND {_RECORDED}"

# A project is known when its Project node (grants, policies) or any record of it is readable.
PROJECT_CONVENTIONS = f"""
OPTIONAL MATCH (p:{Label.PROJECT} {{id: $id}}) WHERE {visible("p")}
RETURN p IS NOT NULL OR EXISTS {{
    MATCH (n:{Label.ENTITY} {{project: $project}}) WHERE {visible("n")} }} AS found,
  CASE WHEN p IS NULL THEN [] ELSE
    [k IN keys(p) WHERE k STARTS WITH '{POLICY_RECORDS}' | [k, p[k]]] END AS history
"""

# Metric names: a run's logged and final metrics, an evaluation's metrics.
METRIC_NAMES = f"""
MATCH (n:{Label.ENTITY})
WHERE (n:{Label.RUN} OR n:{Label.EVALUATION}) AND {_OWN}
UNWIND [k IN keys(n) WHERE k STARTS WITH 'metric.' OR k STARTS WITH 'final_metric.'
  | substring(k, size(split(k, '.')[0]) + 1)] AS name
WITH name, count(DISTINCT n) AS records
RETURN name, records ORDER BY name
"""

_NAMED: dict[NamedKind, str] = {
    NamedKind.RUN: f"""
MATCH (n:{Label.RUN}:{Label.ENTITY}) WHERE {_OWN}
OPTIONAL MATCH (n)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
WITH n, head(collect(x.key)) AS experiment
RETURN n.id AS id, n.name AS name, n.started_at AS at,
  {{experiment: experiment, run_number: toString(n.run_number), run_id: n.run_key,
    commit: left(n.code_commit, 7)}} AS facts
""",
    NamedKind.MODEL_VERSION: f"""
MATCH (n:{Label.MODEL_VERSION}:{Label.ENTITY}) WHERE {_OWN}
OPTIONAL MATCH (n)-[:{Rel.GENERATED_BY}]->(r:{Label.RUN}:{Label.ENTITY})
WITH n, head(collect(r.run_key)) AS run
RETURN n.id AS id, n.version AS name, n.registered_at AS at,
  {{model: n.name, run_id: run}} AS facts
""",
    NamedKind.DATASET_VERSION: f"""
MATCH (n:{Label.DATASET_VERSION}:{Label.ENTITY}) WHERE {_OWN}
RETURN n.id AS id, n.version AS name, n.created_at AS at,
  {{dataset: n.name, previous_version: n.previous_version}} AS facts
""",
    NamedKind.IMAGE: f"""
MATCH (n:{Label.ENVIRONMENT}:{Label.ENTITY}) WHERE {_OWN} AND n.image_name IS NOT NULL
RETURN n.id AS id,
  n.image_name + CASE WHEN n.image_tag IS NULL THEN '' ELSE ':' + n.image_tag END AS name,
  n.first_seen_at AS at, {{environment: n.key}} AS facts
""",
}
_NAMED_PAGE = "\nORDER BY at, id LIMIT $limit"

# Outputs: what runs wrote to storage, with the run and the run's experiment.
OUTPUTS = f"""
MATCH (n:{Label.ENTITY})
WHERE (n:{Label.CHECKPOINT} OR n:{Label.DATASET_VERSION} OR n:{Label.MODEL_VERSION}) AND {_OWN}
WITH n, CASE WHEN n:{Label.DATASET_VERSION} THEN n.storage_uri ELSE n.uri END AS uri
WHERE uri IS NOT NULL
OPTIONAL MATCH (n)-[:{Rel.GENERATED_BY}]->(r:{Label.RUN}:{Label.ENTITY})
WITH n, uri, head(collect(r)) AS r
OPTIONAL MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
WITH n, uri, r, head(collect(x.id)) AS experiment
RETURN n.id AS id, [l IN labels(n) WHERE l <> '{Label.ENTITY}'][0] AS kind, uri,
  r.id AS run, experiment, n.first_seen_at AS at
ORDER BY uri, at, id LIMIT $limit
"""


@dataclass(frozen=True)
class Named:
    """A record a naming rule names: its id, its name (None: it has none), when it was
    recorded, and its facts (`schemas.conventions.FACTS`; a fact it lacks is None)."""

    id: str
    name: str | None
    recorded_at: str | None
    facts: Mapping[str, str | None]


@dataclass(frozen=True)
class Output:
    """A stored output: the record, its kind (label), its URI, the run that wrote it and that
    run's experiment (None when not recorded or not readable)."""

    id: str
    kind: str
    uri: str
    run: str | None
    experiment: str | None


class ConventionReads(Protocol):
    """What the guards read, in the caller's `Scope`; each list at most `limit` long."""

    def conventions(self, project: str, scope: Scope) -> Conventions | None:
        """The conventions of the policy in force in `project` (none declared: empty);
        None when neither its Project node nor any record of it is readable."""

    def metric_names(self, project: str, scope: Scope) -> dict[str, int]:
        """Every metric name the project's runs logged or its evaluations recorded, with how
        many records use it."""

    def named(self, project: str, kind: NamedKind, scope: Scope, limit: int) -> list[Named]:
        """The project's records of `kind` with their names and facts, oldest first."""

    def outputs(self, project: str, scope: Scope, limit: int) -> list[Output]:
        """The project's outputs stored at a URI, by URI."""


def latest_conventions(history: Mapping[str, Any]) -> Conventions:
    """The conventions of the greatest log version in a policy history (name -> JSON text)."""
    if not history:
        return NO_CONVENTIONS
    text = history[max(history)]
    data = parse_json(text) if isinstance(text, str) else None
    return Conventions.from_stored(data) if isinstance(data, dict) else NO_CONVENTIONS


class ConventionReader:
    """`ConventionReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def conventions(self, project: str, scope: Scope) -> Conventions | None:
        params = {**scope_params(scope), "id": project_id(project), "project": project}
        (record,) = self._session.run(PROJECT_CONVENTIONS, params)
        if not record["found"]:
            return None
        return latest_conventions({str(k): v for k, v in record["history"]})

    def metric_names(self, project: str, scope: Scope) -> dict[str, int]:
        params = {**scope_params(scope), "project": project}
        return {r["name"]: int(r["records"]) for r in self._session.run(METRIC_NAMES, params)}

    def named(self, project: str, kind: NamedKind, scope: Scope, limit: int) -> list[Named]:
        params = {**scope_params(scope), "project": project, "limit": limit}
        found = self._session.run(_NAMED[kind] + _NAMED_PAGE, params)
        return [
            Named(
                r["id"],
                r["name"],
                r["at"],
                {**r["facts"], "project": project, "date": day_of(r["at"])},
            )
            for r in found
        ]

    def outputs(self, project: str, scope: Scope, limit: int) -> list[Output]:
        params = {**scope_params(scope), "project": project, "limit": limit}
        found = self._session.run(OUTPUTS, params)
        return [Output(r["id"], r["kind"], r["uri"], r["run"], r["experiment"]) for r in found]
