"""The reads of the model dossier beyond the reproduce recipe: the `DossierReads` port, and
`DossierReader`, its adapter over Neo4j with its Cypher (one round trip per call).

The recipe (`read/recipe_reads.py`) gives the training chain, the environment and the data
tree; these reads add what a dossier shows beside it: the model version's registration,
status changes, validation and evaluations, what serves it, each run's experiment and
lifecycle, and each dataset version's quality gates and mix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.digest_reads import RUN_LIFECYCLE, digest_run
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel
from provgraph.schemas.storage import (
    FIRST_SEEN_AT,
    LAST_EVENT_AT,
    PROJECT,
    json_key,
    parse_json,
    public_deep,
    version_key,
)

Record = Mapping[str, Any]

MAX_EVALUATIONS = 1000
"""At most this many evaluations of one model version are read (the latest)."""
MAX_DEPLOYMENTS = 200
"""At most this many deployments serving one model version are read."""

STATUS_EVENT = "model.version.status.changed"
REGISTERED_EVENT = "model.version.registered"
_REASON = "status_reason"


def _events_of(node: str, kinds: str) -> str:
    """The readable applied events of types `$<kinds>` whose subject is `node`, oldest
    first; the status reason of the one whose value `node` still holds (null for others)."""
    return f"""COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->({node})
    WHERE e.subject = {node}.id AND e.event_type IN ${kinds}
      AND ($all OR e.{PROJECT} IN $projects) AND ($as_of IS NULL OR e.occurred_at <= $as_of)
    WITH e ORDER BY e.occurred_at, e.event_id
    RETURN {{type: e.event_type, event_id: e.event_id, at: e.occurred_at, actor: e.actor,
             principal: e.principal,
             reason: CASE WHEN {node}[$reason_v] ENDS WITH '|' + e.event_id
                          THEN {node}.{_REASON} END}} }}"""


# A model version: its model, registration and status events, evaluations (with the dataset
# versions each used and the run that made it) and the deployments serving it.
DOSSIER_VERSION = f"""
MATCH (v:{Label.MODEL_VERSION}:{Label.ENTITY} {{id: $id}})
WHERE {visible("v")}
RETURN properties(v) AS version,
  head(COLLECT {{
    MATCH (v)-[:{Rel.VERSION_OF}]->(m:{Label.MODEL}:{Label.ENTITY}) WHERE {visible("m")}
    RETURN m {{.id, .name}} ORDER BY m.id LIMIT 1 }}) AS model,
  {_events_of("v", "version_events")} AS events,
  COLLECT {{
    MATCH (v)<-[:{Rel.EVALUATED}]-(x:{Label.EVALUATION}:{Label.ENTITY}) WHERE {visible("x")}
    WITH x ORDER BY x.evaluated_at DESC, x.id LIMIT $evaluations
    RETURN {{props: properties(x),
             datasets: COLLECT {{
               MATCH (x)-[:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
               WHERE {visible("d")} RETURN d.id ORDER BY d.id }},
             runs: COLLECT {{
               MATCH (x)-[:{Rel.GENERATED_BY}]->(r:{Label.RUN}:{Label.ENTITY})
               WHERE {visible("r")} RETURN r.id ORDER BY r.id }}}} AS evaluation
    ORDER BY evaluation.props.evaluated_at, evaluation.props.id
  }} AS evaluations,
  COLLECT {{
    MATCH (v)<-[s:{Rel.SERVES}]-(d:{Label.DEPLOYMENT}:{Label.ENTITY}) WHERE {visible("d")}
    WITH d, s ORDER BY d.id LIMIT $deployments
    RETURN {{props: properties(d), traffic_share: s.traffic_share}} AS deployment
  }} AS deployments
"""

# Runs: each with its experiment and its lifecycle events (who and when).
DOSSIER_RUNS = f"""
UNWIND $ids AS id
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: id}})
WHERE {visible("r")}
RETURN r {{.id, .{PROJECT}, .name, .run_number, .status, .started_at, .ended_at,
           .{LAST_EVENT_AT}, .{FIRST_SEEN_AT}, .conclusion, .error_type, .error_message,
           .abort_reason, .interruption_cause, .steps_lost, .resumed_at_step, .resumed_at,
           .final_step, resources: r.resources_json,
           experiment: head(COLLECT {{
             MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
             WHERE {visible("x")}
             RETURN x {{.id, .key, .number, .code_name, .goal, .description}}
             ORDER BY x.id LIMIT 1 }}),
           lifecycle: {_events_of("r", "lifecycle")}}} AS run
"""

# Dataset versions: the quality gates (stored JSON) and what each was mixed from, with weights.
DOSSIER_DATASETS = f"""
UNWIND $ids AS id
MATCH (d:{Label.DATASET_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {visible("d")}
RETURN d.id AS id, d[$gates] AS quality_gates, COLLECT {{
    MATCH (d)-[t:{Rel.DERIVED_FROM}]->(u:{Label.DATASET_VERSION}:{Label.ENTITY})
    WHERE {visible("u")}
    RETURN {{dataset_version: u.id, transform: t.transform, weight: t.weight}} AS part
    ORDER BY part.dataset_version
}} AS mix
"""


class DossierReads(Protocol):
    """What `recipes.dossier.Dossiers` reads beside the reproduce recipe. Records are plain
    maps of stored properties (no version stamps at any depth), principals named as issued;
    every method takes the caller's `Scope`: an unreadable node is a missing node, events of
    unreadable projects are left out."""

    def model_version(self, version_id: str, scope: Scope) -> Record | None:
        """{version (props), model ({id, name} or None), events (registration and status
        changes, oldest first: {type, event_id, at, actor, principal, reason}: the reason
        only on the status change whose reason the version still holds), evaluations (the
        latest `MAX_EVALUATIONS`, oldest first: {props, datasets, runs}), deployments (those
        serving it: {props, traffic_share})}; None when absent or not a model version."""

    def runs(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        """For each run of `ids`, in the order asked, {id, project, name, run_number,
        status, times, conclusion, error_type, error_message, abort_reason, the last
        resume's interruption_cause, steps_lost and resumed_at_step, final_step, resources
        (decoded), experiment ({id, key, number, code_name, goal, description} or None),
        lifecycle ({type, event_id, at, actor, principal}, oldest first)}; None when absent."""

    def dataset_versions(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        """For each dataset version of `ids`, in the order asked, {id, quality_gates (decoded,
        None when none were recorded), mix ({dataset_version, transform, weight} of each
        readable version it derives from)}; None when absent."""


class DossierReader:
    """`DossierReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def _read(self, text: str, scope: Scope, **params: Any) -> list[dict[str, Any]]:
        found = self._session.run(text, {**scope_params(scope), **params})
        return [r.data() for r in found]

    def model_version(self, version_id: str, scope: Scope) -> Record | None:
        """The model version and what the dossier shows about it; None when absent."""
        found = self._read(
            DOSSIER_VERSION,
            scope,
            id=version_id,
            version_events=[REGISTERED_EVENT, STATUS_EVENT],
            reason_v=version_key(_REASON),
            evaluations=MAX_EVALUATIONS,
            deployments=MAX_DEPLOYMENTS,
        )
        if not found:
            return None
        record: dict[str, Any] = public_deep(found[0])
        for event in record["events"]:
            event["principal"] = issued_name(event.get("principal"))
        return record

    def runs(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        """For each run of `ids`, its experiment and lifecycle; None when absent."""
        found = self._read(
            DOSSIER_RUNS,
            scope,
            ids=list(ids),
            lifecycle=list(RUN_LIFECYCLE),
            reason_v=version_key(_REASON),
        )
        by_id = {r["run"]["id"]: digest_run(r["run"]) for r in found}
        for run in by_id.values():
            for event in run["lifecycle"]:
                event.pop("reason", None)  # runs keep no status reason
        return [by_id.get(i) for i in ids]

    def dataset_versions(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        """For each dataset version of `ids`, its quality gates and mix; None when absent."""
        found = self._read(DOSSIER_DATASETS, scope, ids=list(ids), gates=json_key("quality_gates"))
        by_id = {str(r["id"]): dataset_record(r) for r in found}
        return [by_id.get(i) for i in ids]


def dataset_record(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A row of `DOSSIER_DATASETS` with its stored quality gates decoded."""
    raw = stored.get("quality_gates")
    gates = parse_json(raw) if isinstance(raw, str) else None
    return {
        "id": stored["id"],
        "quality_gates": gates if isinstance(gates, dict) else None,
        "mix": [dict(part) for part in stored.get("mix") or ()],
    }
