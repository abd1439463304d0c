"""The read of `search` (lessons): the `LessonReads` port, and `LessonReader`, its adapter over
Neo4j with its Cypher: the full-text index `lessons` (`schemas.graph.LESSON_FIELDS`: goals,
conclusions, error messages, abort reasons, descriptions, change notes, incidents) queried and
filtered in one round trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params, where_params
from provgraph.query.read.fragments import kind, live, passes, visible
from provgraph.query.read.model import EVERY_NODE, NodeWhere, Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import LESSONS_INDEX, Label, Rel
from provgraph.schemas.storage import public_deep


@dataclass(frozen=True)
class LessonFilter:
    """What a hit must also be: `where`, the filters `nodes` and `search` share (a project, a
    status, a run parameter, a dataset version used, ...: `NodeWhere`), and one of `labels`
    (none: any the index holds)."""

    where: NodeWhere = EVERY_NODE
    labels: tuple[str, ...] = ()


# The best $candidates matches of the Lucene query $query, then the caller's filters; each hit
# with its score, its stored properties and the experiment it is part of (if a run).
LESSONS = f"""
CALL db.index.fulltext.queryNodes('{LESSONS_INDEX}', $query, {{limit: $candidates}})
YIELD node AS n, score
WHERE {visible("n")} AND {live("n")} AND {passes("n")}
  AND (size($labels) = 0 OR any(l IN labels(n) WHERE l IN $labels))
RETURN {kind("n")} AS type, properties(n) AS props, score,
  head([(n)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}) WHERE {visible("x")} | x.id]) AS experiment
ORDER BY score DESC, n.id
LIMIT $fetch
"""


@dataclass(frozen=True)
class LessonHit:
    """One node the query matched: its type (label), stored properties without version
    stamps, the index's score and, for a run, its experiment."""

    type: str
    props: dict[str, Any]
    score: float
    experiment: str | None


class LessonReads(Protocol):
    """What `recipes.lessons.Lessons` reads, in the caller's `Scope`."""

    def lessons(
        self, query: str, where: LessonFilter, candidates: int, fetch: int, scope: Scope
    ) -> list[LessonHit]:
        """Of the best `candidates` matches of the Lucene `query`, the live ones the caller may
        read that pass `where`, best first (then by id), at most `fetch`."""


class LessonReader:
    """`LessonReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def lessons(
        self, query: str, where: LessonFilter, candidates: int, fetch: int, scope: Scope
    ) -> list[LessonHit]:
        """The hits of `query` that pass `where`, best first."""
        params = {
            **scope_params(scope),
            **where_params(where.where),
            "query": query,
            "candidates": candidates,
            "fetch": fetch,
            "labels": list(where.labels),
        }
        return [
            LessonHit(
                type=str(r["type"]),
                props=public_deep(r["props"]),
                score=float(r["score"]),
                experiment=r["experiment"],
            )
            for r in self._session.run(LESSONS, params)
        ]
