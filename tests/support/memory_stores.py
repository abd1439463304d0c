"""In-memory stand-ins for the graph's lookups that only tests use (the services always read
Neo4j): principals by token hash (`authz.PrincipalSource`) and the payload hashes of applied
events (`http.integrity.PayloadHashes`). tests/contracts/principals.py holds the principals to
what `authz.Neo4jPrincipals` reads, tests/contracts/payload_hashes.py the hashes to what
`graphread.Neo4jPayloadHashes` reads back."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from provgraph.authz import Principal
from provgraph.authz.store import grants_by_project
from provgraph.ingest.projection.mutations import EventMutations
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, event_hash
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import ACCESS, ACCESS_EXPIRES_AT, PROJECT, dotted


class MemoryPrincipals:
    """Principals held in memory, by token hash (`authz.PrincipalSource`): the ones given as
    they are, and those the token and grant events `apply`d leave in the folded graph, read as
    `authz.Neo4jPrincipals` reads them from Neo4j (its current token unless revoked after it was
    issued; its granted roles per project, expired ones left out)."""

    def __init__(self, principals: Mapping[str, Principal] | None = None) -> None:
        self.principals: dict[str, Principal] = dict(principals or {})
        self.graph = MemoryGraph()

    def apply(self, changes: Sequence[EventMutations]) -> None:
        """Fold projected token and grant events into the graph, as the Neo4j writer does."""
        self.graph.write(changes)

    def lookup(self, token_hash: str) -> Principal | None:
        given = self.principals.get(token_hash)
        if given is not None:
            return given
        for label, props in self.graph.nodes.values():
            if label is Label.PRINCIPAL and props.get("token_hash") == token_hash:
                revoked = props.get("revoked_at")
                if revoked is None or revoked < props["token_issued_at"]:
                    return self._folded(props)
        return None

    def _folded(self, props: Mapping[str, Any]) -> Principal:
        name = str(props["name"])
        prefix = dotted(ACCESS, name, "")
        rows = []
        for label, project in self.graph.nodes.values():
            granted = [k for k, v in project.items() if k.startswith(prefix) and v == "granted"]
            if label is Label.PROJECT and granted:
                roles = [
                    [
                        k[len(prefix) :],
                        project.get(dotted(ACCESS_EXPIRES_AT, name, k[len(prefix) :]), ""),
                    ]
                    for k in granted
                ]
                rows.append({"project": project[PROJECT], "roles": roles})
        roles = frozenset(props.get("global_roles") or ())
        return Principal(name, roles, grants_by_project(rows))


class MemoryPayloadHashes:
    """`PayloadHashes` held in memory: `applied` maps event_id -> hash."""

    def __init__(self, applied: Mapping[str, str] | None = None) -> None:
        self.applied: dict[str, str] = dict(applied or {})

    def payload_hashes(self, event_ids: Collection[str]) -> dict[str, str]:
        return {i: self.applied[i] for i in event_ids if i in self.applied}

    def apply(self, events: Sequence[Event]) -> None:
        """Record `events` as applied (the first payload of an event_id stays)."""
        for event in events:
            self.applied.setdefault(str(event.event_id), event_hash(event))


def memory_graph_reads(graph: MemoryGraph | None = None) -> dict[str, MemoryGraph]:
    """The ingest app's graph reads (`create_app`'s owners and facts) answered by one folded
    graph in memory, so that no check of the app reaches a Neo4j server."""
    graph = graph if graph is not None else MemoryGraph()
    return {"owners": graph, "facts": graph}
