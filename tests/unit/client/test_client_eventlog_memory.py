"""The in-memory event log passes the event-log contract."""

from __future__ import annotations

import pytest
from contracts.eventlog import EventLogContract, Stored, StoredHeaders, metric_event

from provgraph.client.eventlog import EventLog, MemoryEventLog


class TestMemoryEventLog(EventLogContract):
    @pytest.fixture()
    def log(self) -> EventLog:
        return MemoryEventLog(partitions=3)

    def read_back(self, log: EventLog, count: int) -> list[Stored]:
        assert isinstance(log, MemoryEventLog)
        return list(log.records)

    def read_headers(self, log: EventLog, count: int) -> StoredHeaders:
        assert isinstance(log, MemoryEventLog)
        return dict(log.headers)


def test_events_are_the_appended_events_parsed_back() -> None:
    log = MemoryEventLog()
    events = [metric_event(0, 0), metric_event(1, 0)]
    log.append(events)
    assert log.events == events
