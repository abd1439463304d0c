"""The reads of the retention advice: the `RetentionReads` port, and `RetentionReader`, its
adapter over Neo4j with its Cypher.

The advice needs every dataset version, checkpoint and model version of one project with what
each one comes from, and every run of the project with what it used, started and resumed from:
both are read in pages in id order (at most `first` nodes a round trip), so that no read grows
with the project. The walk from what is kept to what it stands on is the recipe's
(`recipes/retention.py`), done in memory over these pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import kind, live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import DELETED_AT, FIRST_SEEN_AT, PROJECT, dotted

RETIRED_AT = dotted("status_at", "retired")
"""Where the projection keeps when a model version was retired (`projection/models.py`)."""

ARTEFACT_LABELS = (Label.DATASET_VERSION, Label.CHECKPOINT, Label.MODEL_VERSION)
ARTEFACT_LINKS = (Rel.DERIVED_FROM, Rel.GENERATED_BY, Rel.EXPORTED_FROM)
RUN_LINKS = (Rel.USED, Rel.STARTED_FROM, Rel.RESUMED_FROM)
EVALUATED_WITH = "EVALUATED_WITH"
"""The link of a model version to a dataset version one of its evaluations used: not a
relationship of the graph, (ModelVersion)<-[:EVALUATED]-(Evaluation)-[:USED]->(DatasetVersion)
read as one."""
# What another project's node may stand on: a link of one of these kinds to a node of ours.
_USES = "|".join((Rel.DERIVED_FROM, Rel.EXPORTED_FROM, *RUN_LINKS))


def _links(var: str, rels: tuple[Rel, ...]) -> str:
    """The [type, id] of every node `var` links to by one of `rels` (readable ones)."""
    return f"""COLLECT {{
        MATCH ({var})-[l:{"|".join(rels)}]->(u:{Label.ENTITY})
        WHERE {visible("u")}
        RETURN DISTINCT [type(l), u.id] AS link ORDER BY link }}"""


# One page of the artefacts of $project after $after (by id), with what each comes from, the
# live active deployments serving it, and the projects of the other projects' nodes (and
# deployments) that stand on it: null for a project the caller may not read.
ARTEFACTS = f"""
MATCH (n:{Label.ENTITY})
WHERE n.{PROJECT} = $project AND n.id > $after
  AND ({" OR ".join(f"n:{label}" for label in ARTEFACT_LABELS)}) AND {visible("n")}
WITH n ORDER BY n.id LIMIT $first
RETURN n.id AS id, {kind("n")} AS kind, n.name AS name, n.version AS version, n.step AS step,
       n.size_bytes AS size_bytes, n.status AS status, n[$retired_at] AS retired_at,
       n.{FIRST_SEEN_AT} AS first_seen_at, n.{DELETED_AT} AS deleted_at,
       n.deleted_reason AS deleted_reason,
       {_links("n", ARTEFACT_LINKS)} + COLLECT {{
           MATCH (n:{Label.MODEL_VERSION})<-[:{Rel.EVALUATED}]-(e:{Label.EVALUATION}:{Label.ENTITY})
                 -[:{Rel.USED}]->(u:{Label.ENTITY})
           WHERE {visible("e")} AND {visible("u")}
           RETURN DISTINCT ['{EVALUATED_WITH}', u.id] AS link }} AS upstream,
       COLLECT {{
           MATCH (n)<-[:{Rel.SERVES}]-(d:{Label.DEPLOYMENT}:{Label.ENTITY})
           WHERE d.status = 'active' AND {live("d")} AND {visible("d")}
           RETURN DISTINCT d.id AS id ORDER BY id }} AS served_by,
       COLLECT {{
           MATCH (n)<-[:{_USES}|{Rel.SERVES}]-(x:{Label.ENTITY})
           WHERE x.{PROJECT} <> $project AND {live("x")}
             AND (NOT x:{Label.DEPLOYMENT} OR x.status = 'active')
           RETURN DISTINCT CASE WHEN {visible("x")} THEN x.{PROJECT} END AS project
           ORDER BY project }} AS used_from
"""

# One page of the runs of $project after $after (by id), with what each used, started from
# and resumed from.
RUNS = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY})
WHERE r.{PROJECT} = $project AND r.id > $after AND {visible("r")}
WITH r ORDER BY r.id LIMIT $first
RETURN r.id AS id, r.status AS status, {_links("r", RUN_LINKS)} AS upstream
"""


@dataclass(frozen=True)
class Artefact:
    """A dataset version, checkpoint or model version as the advice reads it.

    `upstream` holds (relationship type, id) of what it comes from (DERIVED_FROM,
    GENERATED_BY, EXPORTED_FROM) and, for a model version, of the dataset versions its
    evaluations used (EVALUATED_WITH); `served_by` the live active deployments serving it;
    `used_from` the other projects whose nodes stand on it (None for one the caller may not
    read); `retired_at` when a model version was retired.
    """

    id: str
    kind: str
    name: str | None
    version: str | None
    step: int | None
    size_bytes: int | None
    status: str | None
    retired_at: str | None
    first_seen_at: str | None
    deleted_at: str | None
    deleted_reason: str | None
    upstream: tuple[tuple[str, str], ...]
    served_by: tuple[str, ...]
    used_from: tuple[str | None, ...]


@dataclass(frozen=True)
class RunLinks:
    """A run, its status and (relationship type, id) of what it used (USED), started from
    (STARTED_FROM) and resumed from (RESUMED_FROM)."""

    id: str
    status: str | None
    upstream: tuple[tuple[str, str], ...]


class RetentionReads(Protocol):
    """What the retention advice reads of one project, in the caller's `Scope` (nothing of a
    project it may not read), one page at a time in id order."""

    def artefacts(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[Artefact]:
        """The project's dataset versions, checkpoints and model versions whose id sorts
        after `after`: the first `first` of them, by id; deleted ones included."""

    def runs(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[RunLinks]:
        """The project's runs whose id sorts after `after`: the first `first`, by id."""


class RetentionReader:
    """`RetentionReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def artefacts(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[Artefact]:
        """A page of the project's artefacts, by id."""
        params = {**self._page(project, scope, after, first), "retired_at": RETIRED_AT}
        return [artefact(r.data()) for r in self._session.run(ARTEFACTS, params)]

    def runs(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[RunLinks]:
        """A page of the project's runs, by id."""
        records = self._session.run(RUNS, self._page(project, scope, after, first))
        return [run_links(r.data()) for r in records]

    @staticmethod
    def _page(project: str, scope: Scope, after: str, first: int) -> dict[str, Any]:
        return {**scope_params(scope), "project": project, "after": after, "first": first}


def _pairs(links: Any) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(t), str(i)) for t, i in links or ()))


def artefact(row: Mapping[str, Any]) -> Artefact:
    """One row of `ARTEFACTS` as an Artefact."""
    return Artefact(
        id=str(row["id"]),
        kind=str(row["kind"]),
        name=row.get("name"),
        version=row.get("version"),
        step=row.get("step"),
        size_bytes=row.get("size_bytes"),
        status=row.get("status"),
        retired_at=row.get("retired_at"),
        first_seen_at=row.get("first_seen_at"),
        deleted_at=row.get("deleted_at"),
        deleted_reason=row.get("deleted_reason"),
        upstream=_pairs(row.get("upstream")),
        served_by=tuple(sorted(row.get("served_by") or ())),
        used_from=tuple(sorted(row.get("used_from") or (), key=lambda p: (p is None, p or ""))),
    )


def run_links(row: Mapping[str, Any]) -> RunLinks:
    """One row of `RUNS` as RunLinks."""
    return RunLinks(
        id=str(row["id"]), status=row.get("status"), upstream=_pairs(row.get("upstream"))
    )
