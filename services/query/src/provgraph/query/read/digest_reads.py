"""The reads of the digest and the checkpoint advice: the `DigestReads` port, and
`DigestReader`, its adapter over Neo4j with its Cypher (one round trip each)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.compare_reads import GATES_KEY
from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.events.experiment import InputRole
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, LAST_EVENT_AT, PROJECT, public_deep

DIGEST_ITEM_TYPES = (
    "dataset.version.created",
    "model.version.registered",
    "model.version.status.changed",
    "deployment.created",
    "deployment.updated",
    "deployment.retired",
    "deployment.feedback.recorded",
)
ADVICE_KINDS = ("run", "experiment", "project")

TRAIN_ROLE = InputRole.TRAIN.value
RUN_LIFECYCLE = ("run.started", "run.resumed", "run.completed", "run.failed", "run.aborted")


def _lifecycle(run: str) -> str:
    """The lifecycle events of `run` (readable ones), oldest first, with who and when."""
    return f"""COLLECT {{
        MATCH (ev:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->({run})
        WHERE ev.subject = {run}.id AND ev.event_type IN $lifecycle
          AND ($all OR ev.{PROJECT} IN $projects)
        WITH ev ORDER BY ev.occurred_at, ev.event_id
        RETURN ev {{type: ev.event_type, at: ev.occurred_at, .actor, .principal}} }}"""


# Runs of $asked projects started, ended or resumed in [$since, $until), or still running
# (latest $limit), each with the dataset versions it trains on and their quality gates, and
# the dataset versions, model versions and deployments events recorded in the window
# ($limit), in one round trip.
DIGEST = f"""
RETURN COLLECT {{
    MATCH (r:{Label.RUN}:{Label.ENTITY})
    WHERE r.{PROJECT} IN $asked AND {visible("r")} AND {live("r")}
      AND coalesce(r.started_at, r.{FIRST_SEEN_AT}) < $until
      AND (r.status = 'running' OR r.started_at >= $since OR r.ended_at >= $since
           OR r.resumed_at >= $since)
    WITH r ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id LIMIT $limit
    RETURN r {{.id, .{PROJECT}, .name, .run_number, .status, .started_at, .ended_at,
               .{LAST_EVENT_AT}, .conclusion, .error_type, .error_message, .abort_reason,
               resources: r.resources_json,
               experiment: head(COLLECT {{
                   MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
                   WHERE {visible("x")} RETURN x {{.id, .key}} ORDER BY x.id LIMIT 1 }}),
               lifecycle: {_lifecycle("r")},
               trained_on: COLLECT {{
                   MATCH (r)-[u:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
                   WHERE u.role = $train AND {visible("d")}
                   RETURN DISTINCT {{role: u.role, id: d.id, gates: d.{GATES_KEY}}} AS t
                   ORDER BY t.id }}}} AS run
}} AS runs, COLLECT {{
    MATCH (n:{Label.ENTITY})
    WHERE n.{PROJECT} IN $asked AND {visible("n")} AND {live("n")}
      AND (n:{Label.DATASET_VERSION} OR n:{Label.MODEL_VERSION} OR n:{Label.DEPLOYMENT})
      AND n.{LAST_EVENT_AT} >= $since
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE e.subject = n.id AND e.event_type IN $item_types
      AND e.occurred_at >= $since AND e.occurred_at < $until
      AND ($all OR e.{PROJECT} IN $projects)
    WITH e, n ORDER BY e.occurred_at, e.event_id LIMIT $limit
    RETURN {{event_type: e.event_type, at: e.occurred_at, actor: e.actor,
             principal: e.principal,
             node: n {{.id, .name, .version, .status, .feedback_model_version}},
             status_at: [k IN keys(n) WHERE k STARTS WITH 'status_at.'
                         | [substring(k, 10), n[k]]]}} AS item
}} AS items
"""

_ADVICE_RUNS = {
    "run": f"MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $target}})",
    "experiment": (
        f"MATCH (x:{Label.EXPERIMENT}:{Label.ENTITY} {{id: $target}}) WHERE {visible('x')} "
        f"MATCH (x)<-[:{Rel.PART_OF}]-(r:{Label.RUN}:{Label.ENTITY})"
    ),
    "project": f"MATCH (r:{Label.RUN}:{Label.ENTITY}) WHERE r.{PROJECT} = $target WITH r",
}


def checkpoint_runs(kind: str) -> str:
    """The runs the checkpoint advice reads: one run, an experiment's or a project's (the
    latest $limit), each with its lifecycle, its checkpoints (the first $checkpoints) and the
    runs resumed from them; `found` says whether the run or experiment is readable."""
    return f"""
OPTIONAL MATCH (t:{Label.ENTITY} {{id: $target}}) WHERE {visible("t")}
RETURN t IS NOT NULL AS found, COLLECT {{
    {_ADVICE_RUNS[kind]}
    WHERE {visible("r")} AND {live("r")}
    WITH r ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id LIMIT $limit
    RETURN r {{.id, .name, .run_number, .status, .started_at, .ended_at, .{LAST_EVENT_AT},
               resources: r.resources_json,
               lifecycle: {_lifecycle("r")},
               checkpoints: COLLECT {{
                   MATCH (c:{Label.CHECKPOINT}:{Label.ENTITY})-[:{Rel.GENERATED_BY}]->(r)
                   WHERE {visible("c")}
                   RETURN c {{.id, .step, .saved_at, .save_seconds, .size_bytes}}
                   ORDER BY c.saved_at, c.id LIMIT $checkpoints }},
               resumed_by: COLLECT {{
                   MATCH (r)<-[:{Rel.GENERATED_BY}]-(c:{Label.CHECKPOINT}:{Label.ENTITY})
                         <-[:{Rel.RESUMED_FROM}]-(n:{Label.RUN}:{Label.ENTITY})
                   WHERE {visible("c")} AND {visible("n")}
                   RETURN DISTINCT n.id AS id ORDER BY id }}}} AS run
}} AS runs
"""


@dataclass(frozen=True)
class DigestRecords:
    """The runs and the recorded items of a digest window; `truncated` when a cap was hit."""

    runs: list[dict[str, Any]]
    items: list[dict[str, Any]]
    truncated: bool


@dataclass(frozen=True)
class AdviceRecords:
    """The runs the checkpoint advice reads; `found` is False for an unreadable target."""

    found: bool
    runs: list[dict[str, Any]]
    truncated: bool


def digest_run(stored: dict[str, Any]) -> dict[str, Any]:
    """A run as the recipes read it: resources decoded, its events' principals as issued."""
    run: dict[str, Any] = public_deep(stored)
    raw = run.get("resources")
    try:
        run["resources"] = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:  # a malformed archive should not fail a whole answer
        run["resources"] = None
    for event in run.get("lifecycle") or ():
        _issued(event)
    return run


def digest_item(stored: dict[str, Any]) -> dict[str, Any]:
    """An item of the digest as the recipes read it: status times as a map, its principal
    as issued."""
    item: dict[str, Any] = public_deep(stored)
    item["status_at"] = {str(k): str(v) for k, v in item.get("status_at") or ()}
    return _issued(item)


def _issued(event: dict[str, Any]) -> dict[str, Any]:
    """The event with its stamped principal named as issued (`schemas.issued_name`)."""
    event["principal"] = issued_name(event.get("principal"))
    return event


class DigestReads(Protocol):
    """What `recipes.team_service.TeamQuestions` reads. Runs and items come as plain maps
    (stored properties without version stamps, `digest_run` and `digest_item`); every method
    takes the caller's `Scope`: what the caller may not read does not exist."""

    def digest(
        self, projects: Sequence[str], since: str, until: str, limit: int, scope: Scope
    ) -> DigestRecords:
        """The runs of `projects` started, ended or resumed in [since, until) or still
        running (latest first), and the items recorded in the window (oldest first): at most
        `limit` of each, `truncated` when there were more."""

    def advice_runs(
        self, kind: str, target: str, limit: int, checkpoints: int, scope: Scope
    ) -> AdviceRecords:
        """The runs of a run, an experiment or a project (`kind`: one of `ADVICE_KINDS`), the
        latest `limit`, each with its lifecycle, its first `checkpoints` checkpoints and the
        runs resumed from them; `found` False when the run or experiment is missing."""


class DigestReader:
    """`DigestReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def digest(
        self, projects: Sequence[str], since: str, until: str, limit: int, scope: Scope
    ) -> DigestRecords:
        """Runs and items of `projects` in [since, until), at most `limit` of each."""
        params = {
            **scope_params(scope),
            "asked": list(projects),
            "since": since,
            "until": until,
            "limit": limit + 1,
            "lifecycle": list(RUN_LIFECYCLE),
            "item_types": list(DIGEST_ITEM_TYPES),
            "train": TRAIN_ROLE,
        }
        (record,) = self._session.run(DIGEST, params)
        runs = [digest_run(r) for r in record["runs"]]
        items = [digest_item(i) for i in record["items"]]
        truncated = len(runs) > limit or len(items) > limit
        return DigestRecords(runs[:limit], items[:limit], truncated)

    def advice_runs(
        self, kind: str, target: str, limit: int, checkpoints: int, scope: Scope
    ) -> AdviceRecords:
        """The runs of a run, an experiment or a project (`kind`), at most `limit`."""
        if kind not in ADVICE_KINDS:
            raise ValueError(f"kind must be one of {ADVICE_KINDS}, got {kind!r}")
        params = {
            **scope_params(scope),
            "target": target,
            "limit": limit + 1,
            "checkpoints": checkpoints,
            "lifecycle": list(RUN_LIFECYCLE),
        }
        (record,) = self._session.run(checkpoint_runs(kind), params)
        runs = [digest_run(r) for r in record["runs"]]
        found = bool(record["found"]) if kind != "project" else bool(runs)
        return AdviceRecords(found, runs[:limit], len(runs) > limit)
