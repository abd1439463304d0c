"""The event-log port's contract: every adapter appends, orders and refuses the same way.

One abstract test class that each adapter's test runs (as pyeventsourcing runs one recorder
suite against every recorder): the unit tests on `MemoryEventLog`, the integration tests on
`KafkaEventLog` against the real broker. What was appended is read back from the adapter's
own storage, so an adapter cannot pass by answering positions it never wrote.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import defaultdict

import pytest

from provgraph.client.errors import RejectedError
from provgraph.client.eventlog import EventLog
from provgraph.schemas import Event, RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload

Stored = tuple[int, int, bytes, bytes]
"""One record as stored: partition, offset, key, value."""
StoredHeaders = dict[tuple[int, int], list[tuple[str, bytes]]]
"""The headers of each stored record, by (partition, offset)."""


def metric_event(subject: int, step: int, *, name_length: int = 4) -> RunMetricsLogged:
    """An event about run ``r<subject>``; its step numbers the append order per subject."""
    name = "l" * name_length
    point = MetricPoint(name=name, step=step, value=float(step))
    payload = RunMetricsLoggedPayload(run_id=f"r{subject}", points=(point,))
    return RunMetricsLogged.create(
        project="contract", producer="https://example.com/c", actor="user:c", payload=payload
    )


def oversized_event() -> Event:
    """An event the contract refuses: over MAX_EVENT_BYTES (256 KiB) serialized."""
    points = tuple(MetricPoint(name=f"{'m' * 250}{i}", step=i, value=1.0) for i in range(1000))
    payload = RunMetricsLoggedPayload(run_id="r-big", points=points)
    return RunMetricsLogged.create(
        project="contract", producer="https://example.com/c", actor="user:c", payload=payload
    )


def batch(subjects: int = 3, per_subject: int = 4) -> list[Event]:
    """Events of several subjects, interleaved."""
    return [metric_event(i % subjects, i // subjects) for i in range(subjects * per_subject)]


class EventLogContract(ABC):
    """What every `EventLog` adapter must do; subclass it once per adapter.

    A subclass provides the `log` fixture (a fresh, empty log it closes afterwards),
    `read_back` and `read_headers`.
    """

    @abstractmethod
    def read_back(self, log: EventLog, count: int) -> list[Stored]:
        """The records `log` stores, once at least `count` are there."""

    @abstractmethod
    def read_headers(self, log: EventLog, count: int) -> StoredHeaders:
        """The headers of the records `log` stores, once at least `count` are there."""

    def test_append_answers_one_position_per_event_in_order(self, log: EventLog) -> None:
        events = batch()
        appended = log.append(events)
        assert [a.event_id for a in appended] == [str(e.event_id) for e in events]

    def test_one_subject_stays_on_one_partition_in_append_order(self, log: EventLog) -> None:
        events = batch()
        positions: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for event, at in zip(events, log.append(events), strict=True):
            positions[event.subject].append((at.partition, at.offset))
        for subject, places in positions.items():
            assert len({p for p, _ in places}) == 1, f"{subject} spread over partitions"
            offsets = [o for _, o in places]
            assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)

    def test_stored_is_the_subject_key_and_the_canonical_json(self, log: EventLog) -> None:
        events = batch()
        appended = log.append(events)
        stored = {(p, o): (k, v) for p, o, k, v in self.read_back(log, len(events))}
        expected = {
            (a.partition, a.offset): (e.kafka_key(), e.to_json_bytes())
            for e, a in zip(events, appended, strict=True)
        }
        assert stored == expected

    def test_an_empty_append_writes_nothing(self, log: EventLog) -> None:
        assert log.append([]) == []
        first = metric_event(0, 0)
        log.append([first])
        assert [v for *_, v in self.read_back(log, 1)] == [first.to_json_bytes()]

    def test_an_event_the_contract_refuses_is_rejected_and_the_rest_appended(
        self, log: EventLog
    ) -> None:
        good, big = [metric_event(0, 0), metric_event(1, 0)], oversized_event()
        with pytest.raises(RejectedError) as raised:
            log.append([good[0], big, good[1]])
        assert raised.value.events == [big]
        stored = sorted(v for *_, v in self.read_back(log, len(good)))
        assert stored == sorted(e.to_json_bytes() for e in good)

    def test_headers_are_stored_per_event_beside_the_unchanged_json(self, log: EventLog) -> None:
        events = batch(subjects=2, per_subject=2)
        headers = [[("provgraph-principal", f"principal:user:u{i}".encode())] for i in range(4)]
        headers[1] = []
        appended = log.append(events, headers=headers)
        stored = self.read_headers(log, len(events))
        assert [stored[(a.partition, a.offset)] for a in appended] == headers
        values = {(p, o): v for p, o, _, v in self.read_back(log, len(events))}
        assert [values[(a.partition, a.offset)] for a in appended] == [
            e.to_json_bytes() for e in events
        ]

    def test_headers_must_match_the_events(self, log: EventLog) -> None:
        with pytest.raises(ValueError, match="2 header sets for 1 events"):
            log.append([metric_event(0, 0)], headers=[[], []])
        assert self.read_back(log, 0) == []

    def test_a_reachable_log_answers_the_probe(self, log: EventLog) -> None:
        log.check_reachable()
