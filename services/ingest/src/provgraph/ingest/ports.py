"""The projector's ports: where events come from, where the graph goes, where poison goes.

The projector's loop knows only these. The CLI wires the production adapters (the Kafka event
source, the Neo4j `GraphWriter`, the dead-letter topic); tests wire fakes and the in-memory
graph. Each port has one contract-test suite that every adapter passes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from provgraph.ingest.projection import EventMutations
from provgraph.ingest.projection.canonical import CanonicalGraph, Sink
from provgraph.ingest.projection.discipline import RecordFacts
from provgraph.ingest.projection.ownership import Owner


@dataclass(frozen=True)
class PartitionOffset:
    """The last offset of a (topic, partition) that a batch covers."""

    topic: str
    partition: int
    offset: int


class LogRecord(Protocol):
    """One record of the event log, as the projector reads it (a Kafka `ConsumerRecord`)."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...

    @property
    def offset(self) -> int: ...

    @property
    def key(self) -> bytes | None: ...

    @property
    def value(self) -> bytes | None: ...

    @property
    def timestamp(self) -> int:
        """When the log received the record, in ms since the epoch (on the event topic, the
        broker's append time: `message.timestamp.type=LogAppendTime`); -1 when unknown."""
        ...

    @property
    def headers(self) -> Sequence[tuple[str, bytes]]:
        """The record's headers (ingest stamps `provgraph-principal`)."""
        ...


Poison = list[tuple[LogRecord, BaseException]]
"""Records that cannot be projected, each with the reason."""


class EventSource(Protocol):
    """The event log as one member of the projector's consumer group reads it.

    Positions are the next offset to read. The projector positions every assigned partition
    itself (from the offsets its writer stored), so `commit` is only a progress hint for
    monitoring and for a reader that does not seek. An unreachable log raises
    `kafka.errors.KafkaError` (the projector pauses and polls again).
    """

    @property
    def topic(self) -> str:
        """The one topic this source reads."""
        ...

    def subscribe(self, on_assigned: Callable[[list[int]], None]) -> None:
        """Join the group; call `on_assigned` with the partitions of every new assignment,
        from inside `poll` (in the polling thread, never a client's IO thread, so it may be
        slow) and before any of their records is returned, so it can `seek`."""
        ...

    def poll(self) -> list[LogRecord]:
        """The next batch of records of the assigned partitions (empty when there is none)."""
        ...

    def seek(self, partition: int, offset: int | None) -> None:
        """Read `partition` from `offset` next; `None` means from its beginning."""
        ...

    def assigned(self) -> list[int]:
        """The partitions assigned to this member now, sorted."""
        ...

    def commit(self, done: Sequence[PartitionOffset]) -> None:
        """Record that every offset up to `done` is processed (the group resumes after it)."""
        ...

    def caught_up(self) -> bool:
        """True when partitions are assigned and every one is read to its end."""
        ...

    def close(self) -> None:
        """Leave the group without committing anything more."""
        ...


class OwnerLookup(Protocol):
    """Who owns entities, as the graph holds them now (`projection.ownership`)."""

    def owners(self, ids: Collection[str]) -> dict[str, Owner]:
        """The stored owner of each of `ids` that is in the graph (absent: never seen)."""
        ...


Ids = Collection[str]
"""Node ids asked about, in any order (the lookups sort what they send)."""


class FactsLookup(Protocol):
    """What the records-discipline rules read of the graph now (`projection.discipline`)."""

    def discipline_facts(
        self, environments: Ids, projects: Ids, dataset_versions: Ids = (), model_versions: Ids = ()
    ) -> RecordFacts:
        """The stored contents of each of `environments` that has a snapshot, the policy
        history of each of `projects` that has set one, the quality checks of each of
        `dataset_versions` that recorded some, and which of `model_versions` have an
        evaluation recorded."""
        ...

    def output_writers(
        self, uris: Ids, runs: Ids
    ) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str | None]]:
        """The live outputs (checkpoints, dataset versions, model versions) stored at each of
        `uris`, as (record, job) in the order they were first seen (a job: the experiment of
        the run that wrote it, else that run, else the output), and the experiment of each of
        `runs` (None: in none, or not recorded)."""
        ...


class BatchWriter(OwnerLookup, FactsLookup, Protocol):
    """Applies a batch of event mutations and stores the batch's offsets in one transaction.

    Exactly once per `event_id`: an event applied before (in any batch) is a no-op; a copy under
    that `event_id` with another payload hash (applied before, or earlier in the batch) makes
    `write` raise `rejections.RejectedEvents` naming it, with nothing applied. Offsets only
    move forward. While the store is unreachable, `write` and `read_offsets` raise an
    error for which `batch.is_unavailable` is true; nothing is applied then. Any other error
    means the store refused something in the batch (`batch.apply_batch` isolates it).
    """

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        """Apply `changes` and store `offsets` atomically; return how many events were new."""
        ...

    def read_offsets(self, topic: str) -> dict[int, int]:
        """The last stored offset per partition of `topic`."""
        ...


class GraphView(Protocol):
    """The projected graph read back in canonical form: what `verify` compares."""

    def emit(self, sink: Sink, project: str | None = None) -> None:
        """Hand the whole graph, or only `project`'s nodes and the relationships leaving them,
        to `sink`, one node and one relationship at a time (memory bounded by the sink)."""
        ...

    def canonical(
        self, project: str | None = None, parts: Collection[int] | None = None
    ) -> CanonicalGraph:
        """What `emit` hands over, kept (with `parts`, only those parts) and sorted."""
        ...


class DeadLetterSink(Protocol):
    """Where poison records go, each with where it came from and why it failed.

    `send` returns only once every record is stored; when the sink is unreachable it raises
    `kafka.errors.KafkaError` and the projector reads the same records again later.
    """

    def send(self, poison: Poison) -> None:
        """Store every poison record with its source position and its error."""
        ...

    def close(self) -> None:
        """Flush and release the sink."""
        ...
