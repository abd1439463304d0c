"""The reads of the digest and the checkpoint advice over Neo4j: one round trip each."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import scope_params
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.storage import public_deep

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


def _run(stored: dict[str, Any]) -> dict[str, Any]:
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


def _issued(event: dict[str, Any]) -> dict[str, Any]:
    """The event with its stamped principal named as issued (`schemas.issued_name`)."""
    event["principal"] = issued_name(event.get("principal"))
    return event


class DigestReads:
    """The reads of one request, bound to its scope (the `DigestSource` and `AdviceSource`
    ports of `recipes.team_service`)."""

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope_params(scope)

    def digest(self, projects: Sequence[str], since: str, until: str, limit: int) -> DigestRecords:
        """Runs and items of `projects` in [since, until), at most `limit` of each."""
        params = {
            **self._scope,
            "asked": list(projects),
            "since": since,
            "until": until,
            "limit": limit + 1,
            "lifecycle": list(cypher.RUN_LIFECYCLE),
            "item_types": list(DIGEST_ITEM_TYPES),
        }
        (record,) = self._session.run(cypher.DIGEST, params)
        runs = [_run(r) for r in record["runs"]]
        items = [_issued(_status_map(public_deep(i))) for i in record["items"]]
        truncated = len(runs) > limit or len(items) > limit
        return DigestRecords(runs[:limit], items[:limit], truncated)

    def advice_runs(self, kind: str, target: str, limit: int, checkpoints: int) -> AdviceRecords:
        """The runs of a run, an experiment or a project (`kind`), at most `limit`."""
        if kind not in ADVICE_KINDS:
            raise ValueError(f"kind must be one of {ADVICE_KINDS}, got {kind!r}")
        params = {
            **self._scope,
            "target": target,
            "limit": limit + 1,
            "checkpoints": checkpoints,
            "lifecycle": list(cypher.RUN_LIFECYCLE),
        }
        (record,) = self._session.run(cypher.checkpoint_runs(kind), params)
        runs = [_run(r) for r in record["runs"]]
        found = bool(record["found"]) if kind != "project" else bool(runs)
        return AdviceRecords(found, runs[:limit], len(runs) > limit)


def _status_map(item: dict[str, Any]) -> dict[str, Any]:
    item["status_at"] = {str(k): str(v) for k, v in item.get("status_at") or ()}
    return item
