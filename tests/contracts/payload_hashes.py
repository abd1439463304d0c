"""The payload-hashes lookup's contract (`http.integrity.PayloadHashes`): what ingest reads to
tell a retry of an applied event from another payload under its event_id. The in-memory
stand-in of the unit tests (`support.memory_stores.MemoryPayloadHashes`) and
`graphread.Neo4jPayloadHashes` over what the Neo4j writer stored answer the same, with the hash
ingest computes (`schemas.event_hash`).

A subclass per adapter gives `fresh()`: a lookup over a graph that holds no event of this test,
and how to apply events to that graph.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import pytest

from provgraph.ingest.http.errors import EventIdConflictError
from provgraph.ingest.http.integrity import PayloadHashes, check_applied
from provgraph.schemas import Event, RunStarted, event_hash
from provgraph.schemas.events.experiment import RunStartedPayload

Apply = Callable[[Sequence[Event]], None]


class PayloadHashesContract(ABC):
    """What every lookup answers about applied events, and what `check_applied` makes of it."""

    project: str

    @abstractmethod
    def fresh(self) -> tuple[PayloadHashes, Apply]:
        """A lookup over a graph with no event of this test, and how to apply events to it."""

    def started(self, step: int) -> Event:
        payload = RunStartedPayload(run_id=f"hashes-{uuid.uuid4().hex[:12]}", params={"n": step})
        return RunStarted.create(
            project=self.project, producer="https://t/1", actor="user:t", payload=payload
        )

    def test_nothing_is_applied_in_a_fresh_graph(self) -> None:
        hashes, _ = self.fresh()
        assert hashes.payload_hashes([str(self.started(1).event_id)]) == {}
        assert hashes.payload_hashes([]) == {}

    def test_each_applied_event_asked_for_answers_the_hash_ingest_computes(self) -> None:
        hashes, apply = self.fresh()
        a, b, unseen = self.started(1), self.started(2), self.started(3)
        apply([a, b])
        ids = [str(e.event_id) for e in (a, b, unseen)]
        assert hashes.payload_hashes(ids) == {ids[0]: event_hash(a), ids[1]: event_hash(b)}
        assert hashes.payload_hashes(ids[1:]) == {ids[1]: event_hash(b)}

    def test_a_retry_is_told_from_another_payload_under_the_same_event_id(self) -> None:
        hashes, apply = self.fresh()
        applied, fresh = self.started(1), self.started(2)
        apply([applied])
        assert check_applied([fresh, applied], hashes) == {str(applied.event_id)}
        other = self.started(3).model_copy(update={"event_id": applied.event_id})
        with pytest.raises(EventIdConflictError) as raised:
            check_applied([fresh, other], hashes)
        assert raised.value.details["stored_hash"] == event_hash(applied)
