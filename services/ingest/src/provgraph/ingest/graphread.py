"""Read the projected graph back from Neo4j, each read with its Cypher: the canonical form (for
verify and hashes), and what the checks of ingest and the projector look up (the owners of
entities, the records-discipline facts, the payload hashes of applied events)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from neo4j import READ_ACCESS, Driver, Record, RoutingControl

from provgraph.ingest.ports import GraphView, Ids, OwnerLookup
from provgraph.ingest.projection.canonical import CanonicalGraph, Sink, event_key
from provgraph.ingest.projection.completeness import (
    DATASET_VERSION_CREATED,
    MODEL_EVALUATED,
    POLICY_HISTORY,
    QUALITY_GATES,
    failed_checks,
    history_rows,
    policy_history,
)
from provgraph.ingest.projection.discipline import (
    CONTENT_FIELDS,
    CONTENT_HASH,
    Lookups,
    RecordFacts,
    facts_of,
)
from provgraph.ingest.projection.numbering import NUMBER, Numbers, Scope, numbers_of
from provgraph.ingest.projection.ownership import Owner
from provgraph.schemas.graph import (
    APPLIED_EVENT_LABEL,
    METRIC_SERIES_LABEL,
    NUMBERING_LOCK_LABEL,
    TOUCHED_REL,
    Label,
    Rel,
)
from provgraph.schemas.records import POLICY_RECORDS
from provgraph.schemas.storage import CLAIMED, DELETED_AT, FIRST_SEEN_AT, PLACEHOLDER

_SCOPE = (
    f"(n:Entity OR n:{APPLIED_EVENT_LABEL} OR n:{METRIC_SERIES_LABEL})"
    " AND ($project IS NULL OR n.project = $project)"
)

_NODES = f"""
MATCH (n) WHERE {_SCOPE}
RETURN labels(n) AS labels, properties(n) AS props
"""

# Relationships leaving the scope's nodes: lineage edges and the events' TOUCHED links.
_EDGES = f"""
MATCH (n) WHERE {_SCOPE}
MATCH (n)-[r]->(m)
RETURN coalesce(n.id, 'event:' + n.event_id) AS src, type(r) AS rel,
       coalesce(m.id, 'event:' + m.event_id) AS dst, properties(r) AS props
"""


def _records(
    driver: Driver, query: str, database: str, routing: RoutingControl, **params: Any
) -> list[Record]:
    records: list[Record]
    records, _, _ = driver.execute_query(query, database_=database, routing_=routing, **params)
    return records


def _key(props: dict[str, Any]) -> str:
    return str(props["id"]) if "id" in props else event_key(str(props["event_id"]))


def read_graph(
    driver: Driver,
    project: str | None = None,
    database: str = "neo4j",
    parts: Collection[int] | None = None,
) -> CanonicalGraph:
    """The canonical form of the Neo4j graph, or of one project's part of it (with `parts`,
    only those parts of it)."""
    return CanonicalGraph.collected(lambda sink: emit_graph(driver, sink, project, database), parts)


# The server's `db.transaction.timeout` (120 s in the launcher's neo4j.conf and the compose
# file) bounds the services' reads. A read of the whole graph (`verify`, `graph-hash`, the
# benchmarks' graph checks) is bounded by the graph's size instead: at 10M events its node
# read outlived 120 s and was terminated. Neo4j 5.3 and later take a client's timeout above
# the server's.
WHOLE_GRAPH_READ_TIMEOUT_S = 6 * 3600.0


def emit_graph(
    driver: Driver,
    sink: Sink,
    project: str | None = None,
    database: str = "neo4j",
    timeout_s: float = WHOLE_GRAPH_READ_TIMEOUT_S,
) -> None:
    """Stream the graph (or one project's part of it) to `sink`: nodes, then edges, each in a
    read transaction of its own (any member of a cluster may answer; each ended by the server
    after `timeout_s`) whose records are handed over as they arrive, so memory is the sink's.
    Not retried: a sink cannot take a record back, and a failed read fails the command that
    asked."""
    with driver.session(database=database, default_access_mode=READ_ACCESS) as session:
        with session.begin_transaction(timeout=timeout_s) as tx:
            for record in tx.run(_NODES, project=project):
                props = dict(record["props"])
                sink.add_node(_key(props), list(record["labels"]), props)
        with session.begin_transaction(timeout=timeout_s) as tx:
            for record in tx.run(_EDGES, project=project):
                sink.add_edge(record["src"], record["rel"], record["dst"], dict(record["props"]))


class Neo4jGraph(GraphView):
    """The graph view of a Neo4j database: what `verify` compares with the log's fold."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def emit(self, sink: Sink, project: str | None = None) -> None:
        """Stream the graph, or one project's part of it, to `sink`."""
        emit_graph(self.driver, sink, project, self.database)

    def canonical(
        self, project: str | None = None, parts: Collection[int] | None = None
    ) -> CanonicalGraph:
        """The canonical form of the graph, or of one project's part of it."""
        return read_graph(self.driver, project, self.database, parts)


# Who owns the given entities now (`ports.OwnerLookup`): `claimed` as `merge.apply_node`
# reads it, a defined node without the flag counting as claimed.
OWNERS = f"""
UNWIND $ids AS id
MATCH (n:{Label.ENTITY} {{id: id}})
RETURN n.id AS id, n.project AS project,
       coalesce(n.{CLAIMED}, false) OR NOT coalesce(n.{PLACEHOLDER}, true) AS claimed
"""


def read_owners(
    driver: Driver,
    ids: Collection[str],
    database: str = "neo4j",
    routing: RoutingControl = RoutingControl.WRITE,
) -> dict[str, Owner]:
    """The stored owner of each of `ids` in the graph, in one query. The projector reads from
    the leader (it must see its own last batch); ingest may read from any member."""
    if not ids:
        return {}
    records = _records(driver, OWNERS, database, routing, ids=sorted(ids))
    return {str(r["id"]): Owner(str(r["project"]), bool(r["claimed"])) for r in records}


class Neo4jOwners(OwnerLookup):
    """The owners lookup of ingest: one read of the projected graph per batch."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def owners(self, ids: Collection[str]) -> dict[str, Owner]:
        """The stored owner of each of `ids` in the graph."""
        return read_owners(self.driver, ids, self.database, RoutingControl.READ)


# The payload hash the projector stored on each applied event (`integrity.PayloadHashes`);
# one lookup by the event_id constraint per id.
_PAYLOAD_HASHES = f"""
UNWIND $ids AS id
MATCH (e:{APPLIED_EVENT_LABEL} {{event_id: id}})
WHERE e.payload_hash IS NOT NULL
RETURN e.event_id AS event_id, e.payload_hash AS payload_hash
"""


class Neo4jPayloadHashes:
    """The stored payload hashes of applied events: one read of the graph per batch."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def payload_hashes(self, event_ids: Collection[str]) -> dict[str, str]:
        """The stored hash of each of `event_ids` that is applied."""
        if not event_ids:
            return {}
        records = _records(
            self.driver, _PAYLOAD_HASHES, self.database, RoutingControl.READ, ids=sorted(event_ids)
        )
        return {str(r["event_id"]): str(r["payload_hash"]) for r in records}


# What the records-discipline rules read (`ports.FactsLookup`, `projection.discipline`): the
# contents of recorded environments, the policy history of projects, the quality gates of
# dataset versions and which model versions have an evaluation.
ENVIRONMENT_CONTENTS = f"""
UNWIND $ids AS id
MATCH (n:{Label.ENVIRONMENT} {{id: id}})
WHERE n.{CONTENT_HASH} IS NOT NULL
RETURN n.id AS id, n.{CONTENT_HASH} AS digest, coalesce(n.{CONTENT_FIELDS}, []) AS fields
"""

PROJECT_POLICIES = f"""
UNWIND $projects AS project
MATCH (n:{Label.PROJECT} {{id: 'project:' + project}})
WITH project, n, [k IN keys(n) WHERE any(p IN $prefixes WHERE k STARTS WITH p)] AS entries
WHERE size(entries) > 0
RETURN project, [k IN entries | [k, n[k]]] AS history
"""

# When the log appended what recorded them: the earliest event of that type that touched the
# node (its AppliedEvent's `logged_at`, else its `occurred_at` when folded without its record).
_FIRST_LOGGED = f"""
head(COLLECT {{
    MATCH (a:{APPLIED_EVENT_LABEL} {{event_type: $event_type}})-[:{TOUCHED_REL}]->(n)
    WITH coalesce(a.logged_at, a.occurred_at) AS at ORDER BY at LIMIT 1 RETURN at
}})"""

DATASET_GATES = f"""
UNWIND $ids AS id
MATCH (n:{Label.DATASET_VERSION} {{id: id}})
WHERE n.{QUALITY_GATES} IS NOT NULL
RETURN n.id AS id, n.{QUALITY_GATES} AS gates, {_FIRST_LOGGED.strip()} AS at
"""

EVALUATED_VERSIONS = f"""
UNWIND $ids AS id
MATCH (n:{Label.MODEL_VERSION} {{id: id}})
WITH n, {_FIRST_LOGGED.strip()} AS at
WHERE at IS NOT NULL
RETURN n.id AS id, at
"""


def read_discipline_facts(
    driver: Driver,
    wanted: Lookups,
    database: str = "neo4j",
    routing: RoutingControl = RoutingControl.WRITE,
) -> RecordFacts:
    """What the discipline rules read for `wanted` (`projection.discipline.lookups`): one
    read per kind of fact asked for, none when nothing is asked."""

    def read(query: str, asked: list[str], **params: Any) -> list[Record]:
        return _records(driver, query, database, routing, **params) if asked else []

    environments = read(ENVIRONMENT_CONTENTS, wanted.environments, ids=wanted.environments)
    found = {str(r["id"]): (str(r["digest"]), [str(f) for f in r["fields"]]) for r in environments}
    prefixes = [POLICY_HISTORY, POLICY_RECORDS]
    rows = read(PROJECT_POLICIES, wanted.projects, projects=wanted.projects, prefixes=prefixes)
    policies = {str(r["project"]): policy_history(*history_rows(r["history"])) for r in rows}
    created = {"event_type": DATASET_VERSION_CREATED, "ids": wanted.dataset_versions}
    gates = {
        str(r["id"]): (failed_checks(r["gates"]), str(r["at"] or ""))
        for r in read(DATASET_GATES, wanted.dataset_versions, **created)
    }
    evaluations = {"event_type": MODEL_EVALUATED, "ids": wanted.model_versions}
    evaluated = read(EVALUATED_VERSIONS, wanted.model_versions, **evaluations)
    return facts_of(
        found,
        policies,
        {d: (f, at) for d, (f, at) in gates.items() if f is not None},
        {str(r["id"]): str(r["at"]) for r in evaluated},
    )


# What the place rule reads (`discipline.places_wanted`): the live outputs stored at each URI
# (by the indexes on `uri` and `storage_uri`), each with its job: the experiment of the run
# that wrote it, else that run, else the output itself; and the experiment of each run asked.
OUTPUT_WRITERS = f"""
UNWIND $uris AS uri
CALL {{
    WITH uri
    MATCH (n:{Label.ENTITY} {{uri: uri}}) RETURN n
    UNION
    WITH uri
    MATCH (n:{Label.ENTITY} {{storage_uri: uri}}) RETURN n
}}
WITH uri, n
WHERE (n:{Label.CHECKPOINT} OR n:{Label.DATASET_VERSION} OR n:{Label.MODEL_VERSION})
  AND n.{DELETED_AT} IS NULL
OPTIONAL MATCH (n)-[:{Rel.GENERATED_BY}]->(r:{Label.RUN})
WITH uri, n, head(collect(r.id)) AS run
OPTIONAL MATCH (:{Label.RUN} {{id: run}})-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT})
WITH uri, n, run, head(collect(x.id)) AS experiment
RETURN uri, n.id AS id, coalesce(experiment, run, n.id) AS job
ORDER BY uri, n.{FIRST_SEEN_AT}, id
"""

RUN_EXPERIMENTS = f"""
UNWIND $runs AS run
OPTIONAL MATCH (:{Label.RUN} {{id: run}})-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT})
RETURN run, head(collect(x.id)) AS experiment
"""


def read_output_writers(
    driver: Driver,
    uris: Collection[str],
    runs: Collection[str],
    database: str = "neo4j",
    routing: RoutingControl = RoutingControl.WRITE,
) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str | None]]:
    """The stored outputs at each of `uris` as (record, job), and the experiment of each of
    `runs` (`ports.FactsLookup.output_writers`); nothing is read for what is not asked."""
    writers: dict[str, list[tuple[str, str]]] = {}
    if uris:
        for r in _records(driver, OUTPUT_WRITERS, database, routing, uris=sorted(uris)):
            writers.setdefault(str(r["uri"]), []).append((str(r["id"]), str(r["job"])))
    found = _records(driver, RUN_EXPERIMENTS, database, routing, runs=sorted(runs)) if runs else []
    return writers, {str(r["run"]): r["experiment"] for r in found}


# The numbers held (`projection.numbering`): by the experiments of each project (found by
# their ids, `experiment:<project>/...`), and by the runs PART_OF each experiment.
EXPERIMENT_NUMBERS = f"""
UNWIND $projects AS project
MATCH (x:{Label.EXPERIMENT})
WHERE x.id STARTS WITH 'experiment:' + project + '/' AND x.{NUMBER[Label.EXPERIMENT]} IS NOT NULL
RETURN project AS scope, x.id AS id, x.{NUMBER[Label.EXPERIMENT]} AS number
"""

RUN_NUMBERS = f"""
UNWIND $experiments AS experiment
MATCH (r:{Label.RUN})-[:{Rel.PART_OF}]->(:{Label.EXPERIMENT} {{id: experiment}})
WHERE r.{NUMBER[Label.RUN]} IS NOT NULL
RETURN experiment AS scope, r.id AS id, r.{NUMBER[Label.RUN]} AS number
"""


# Taken first in the writer's transaction: the write lock of each scope's `NumberingLock`
# (merged under its uniqueness constraint, so two writers meet on one node even for a scope
# new to both), held until the transaction commits, so that writers numbering one scope at
# once give their numbers one after the other. Setting and removing a property takes the lock
# and stores nothing.
LOCK_SCOPES = f"""
UNWIND $scopes AS scope
MERGE (l:{NUMBERING_LOCK_LABEL} {{scope: scope}})
SET l.taken = true
REMOVE l.taken
"""


def read_numbers(
    run: Callable[..., Iterable[Record]], projects: Collection[str], experiments: Collection[str]
) -> Numbers:
    """The numbers held in the scopes asked, read with `run(query, **params)` in the writer's
    transaction (numbers are given in the transaction that writes them), once it holds the
    lock of every scope asked (`LOCK_SCOPES`); nothing is read for what is not asked."""
    scopes = [Scope(Label.EXPERIMENT, p) for p in projects]
    scopes += [Scope(Label.RUN, x) for x in experiments]
    list(run(LOCK_SCOPES, scopes=sorted(str(scope) for scope in scopes)))
    rows: list[tuple[Scope, str, int]] = []
    for label, query, asked in (
        (Label.EXPERIMENT, EXPERIMENT_NUMBERS, {"projects": sorted(projects)}),
        (Label.RUN, RUN_NUMBERS, {"experiments": sorted(experiments)}),
    ):
        if next(iter(asked.values())):
            for r in run(query, **asked):
                rows.append((Scope(label, str(r["scope"])), str(r["id"]), int(r["number"])))
    return numbers_of(rows)


class Neo4jDisciplineFacts:
    """The records-discipline facts of ingest (`ports.FactsLookup`): read from any member."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def discipline_facts(
        self, environments: Ids, projects: Ids, dataset_versions: Ids = (), model_versions: Ids = ()
    ) -> RecordFacts:
        """The stored facts the discipline rules read of these ids (`ports.FactsLookup`)."""
        wanted = lookups_of(environments, projects, dataset_versions, model_versions)
        return read_discipline_facts(self.driver, wanted, self.database, RoutingControl.READ)

    def output_writers(
        self, uris: Ids, runs: Ids
    ) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str | None]]:
        """The stored outputs at `uris` and the experiments of `runs` (`ports.FactsLookup`)."""
        return read_output_writers(self.driver, uris, runs, self.database, RoutingControl.READ)


def lookups_of(
    environments: Collection[str],
    projects: Collection[str],
    dataset_versions: Collection[str] = (),
    model_versions: Collection[str] = (),
) -> Lookups:
    """`Lookups` of these ids, each sorted."""
    return Lookups(
        sorted(environments), sorted(projects), sorted(dataset_versions), sorted(model_versions)
    )
