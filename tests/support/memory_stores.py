"""In-memory stand-ins for the graph's lookups that only tests use (the services always read
Neo4j): principals by token hash (`authz.PrincipalSource`) and the payload hashes of applied
events (`http.integrity.PayloadHashes`). tests/contracts/payload_hashes.py holds the hashes to
what `graphread.Neo4jPayloadHashes` reads back."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from provgraph.authz import Principal
from provgraph.schemas import Event, event_hash


class MemoryPrincipals:
    """Principals held in memory, by token hash (`authz.PrincipalSource`)."""

    def __init__(self, principals: Mapping[str, Principal] | None = None) -> None:
        self.principals: dict[str, Principal] = dict(principals or {})

    def lookup(self, token_hash: str) -> Principal | None:
        return self.principals.get(token_hash)


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
