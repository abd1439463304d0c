"""Who acted on the nodes of a PROV export: the `ProvReads` port, and `ProvReader`, its adapter
over Neo4j with its Cypher (many nodes in one round trip).

The graph keeps every event it folded (its applied-event record) linked to each node it
touched; an event is *about* one of them, its subject (a run's `run.started`, a deployment's
`deployment.created`). Its `actor` is who the client says acted, its `principal` who ingest
authenticated, named as its token was issued (`user:ann`; None for an event written straight
to the log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label
from provgraph.schemas.storage import PROJECT


@dataclass(frozen=True, order=True)
class Acted:
    """One actor (and the principal ingest stamped, when it did) of the events about a node,
    and when the first of those events occurred."""

    actor: str
    principal: str | None
    first_at: str


class ProvReads(Protocol):
    """The reads of the PROV export (`recipes/prov_export.py`)."""

    def actors(self, ids: Sequence[str], scope: Scope) -> list[tuple[Acted, ...]]:
        """For each id, in the order asked: the distinct (actor, principal) of the readable
        events about that node, by actor then principal (None first); nothing for a node
        absent or unreadable."""


# For each readable node of $ids, the readable events whose subject it is, grouped by who.
ACTORS = f"""
UNWIND $ids AS id
MATCH (n:{Label.ENTITY} {{id: id}})
WHERE {visible("n")}
RETURN id, COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE e.subject = n.id AND e.actor IS NOT NULL AND ($all OR e.{PROJECT} IN $projects)
    WITH e.actor AS actor, e.principal AS principal, min(e.occurred_at) AS first_at
    RETURN {{actor: actor, principal: principal, first_at: first_at}} AS item
    ORDER BY actor, coalesce(principal, '')
}} AS acted
"""


def _acted(item: Mapping[str, Any]) -> Acted:
    return Acted(str(item["actor"]), issued_name(item["principal"]), str(item["first_at"]))


class ProvReader:
    """`ProvReads` over Neo4j: one round trip for every node asked."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def actors(self, ids: Sequence[str], scope: Scope) -> list[tuple[Acted, ...]]:
        if not ids:
            return []
        params = {**scope_params(scope), "ids": list(dict.fromkeys(ids))}
        found = {
            str(r["id"]): tuple(_acted(item) for item in r["acted"])
            for r in self._session.run(ACTORS, params)
        }
        return [found.get(node_id, ()) for node_id in ids]
