"""The event log port: append events, answer only once they are durable.

One port, two adapters: `MemoryEventLog` here (tests, tools) and `KafkaEventLog`
(`provgraph.client.kafka_log`, the one Kafka producer of provgraph: the SDK's Kafka transport,
the ingest service, the projector's dead letters and the token and grant commands all append
through it). tests/contracts/eventlog.py is the contract every adapter passes.
"""

from __future__ import annotations

import threading
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from provgraph.client.errors import RejectedError
from provgraph.schemas import ContractError, Event, parse_event

Headers = Sequence[tuple[str, bytes]]
"""Record headers beside an event (never part of its JSON): name, UTF-8 value."""
PRINCIPAL_HEADER = "provgraph-principal"
"""The header the ingest service stamps on every event it appends: the authenticated
principal's id (``principal:user:alice``). Events written straight to Kafka have none."""


@dataclass(frozen=True, slots=True)
class Appended:
    """Where one event landed in the log."""

    event_id: str
    partition: int
    offset: int


class EventLog(ABC):
    """Port: the append-only event log.

    `append` first reads every event back through the contract (its canonical JSON parsed
    again); then it writes each event with its subject as key, so one entity's events stay in
    order, and returns once every event is durable, with one position per event in order.
    `headers`, when given, holds one sequence of record headers per event (the ingest service
    stamps the authenticated principal there); they are not part of the event's JSON.

    - `RejectedError` lists the events refused for good (by the contract or by the log); every
      other event of the batch was appended.
    - `TransportError`: the log cannot be reached or did not acknowledge in time. Part of the
      batch may be written: resend it whole; readers dedupe by event_id.
    """

    @abstractmethod
    def append(
        self, events: Sequence[Event], headers: Sequence[Headers] | None = None
    ) -> list[Appended]:
        """Append `events` in order; return once all are durable (see the class docstring)."""

    @abstractmethod
    def check_reachable(self) -> None:
        """Return if the log answers now; raise `TransportError` otherwise."""

    def close(self) -> None:  # noqa: B027  (adapters without resources need no close)
        """Release connections; pending appends are given a bounded time to finish
        (``with contextlib.closing(log):`` closes it at the end of a block)."""


Checked = tuple[Event, bytes, list[tuple[str, bytes]]]
"""An event the contract read back: the event, its canonical JSON, its record headers."""


def checked(
    events: Sequence[Event], headers: Sequence[Headers] | None = None
) -> tuple[list[Checked], list[Event]]:
    """(event, canonical JSON, headers) of each event the contract reads back, and those it
    refuses; `headers` (one sequence per event, or None) must match `events` in length."""
    if headers is not None and len(headers) != len(events):
        raise ValueError(f"{len(headers)} header sets for {len(events)} events")
    good: list[Checked] = []
    refused: list[Event] = []
    for index, event in enumerate(events):
        value = event.to_json_bytes()
        try:
            parse_event(value)
        except ContractError:
            refused.append(event)
        else:
            good.append((event, value, list(headers[index]) if headers is not None else []))
    return good, refused


def refusal(where: str, refused: Sequence[Event]) -> RejectedError:
    """The error of events refused for good by `where`."""
    types = sorted({event.event_type for event in refused})
    return RejectedError(f"{where} refused {len(refused)} events ({', '.join(types)})", refused)


class MemoryEventLog(EventLog):
    """The event log in memory: partitions chosen by key, offsets counted per partition.

    For tests and tools; `records` holds (partition, offset, key, value) in append order and
    `headers` the record headers by (partition, offset).
    """

    def __init__(self, partitions: int = 1) -> None:
        self.partitions = partitions
        self.records: list[tuple[int, int, bytes, bytes]] = []
        self.headers: dict[tuple[int, int], list[tuple[str, bytes]]] = {}
        self._ends = [0] * partitions
        self._lock = threading.Lock()

    def append(
        self, events: Sequence[Event], headers: Sequence[Headers] | None = None
    ) -> list[Appended]:
        good, refused = checked(events, headers)
        with self._lock:
            appended = [self._put(event, value, extra) for event, value, extra in good]
        if refused:
            raise refusal("the in-memory event log", refused)
        return appended

    def check_reachable(self) -> None:
        return None

    @property
    def events(self) -> list[Event]:
        """Every appended event, parsed back, in append order."""
        with self._lock:
            return [parse_event(value) for _, _, _, value in self.records]

    def _put(self, event: Event, value: bytes, headers: list[tuple[str, bytes]]) -> Appended:
        key = event.kafka_key()
        partition = zlib.crc32(key) % self.partitions
        offset = self._ends[partition]
        self._ends[partition] += 1
        self.records.append((partition, offset, key, value))
        self.headers[(partition, offset)] = headers
        return Appended(str(event.event_id), partition, offset)
