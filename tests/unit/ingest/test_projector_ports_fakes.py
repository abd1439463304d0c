"""The event-source and dead-letter contracts on the fakes the projector's loop tests use.

The same contracts run on Kafka in tests/integration/projector/test_projector_ports_kafka.py.
"""

from __future__ import annotations

import pytest
from contracts.projector_ports import DeadLetterSinkContract, EventSourceContract, Letter
from projector_fakes import FakeDeadLetters, FakeEventSource, FakeLog


class TestFakeEventSource(EventSourceContract):
    @pytest.fixture(autouse=True)
    def _log(self) -> None:
        self.log = FakeLog(partitions=[[] for _ in range(self.PARTITIONS)])

    def source(self) -> FakeEventSource:
        return FakeEventSource(self.log, max_records=3)

    def append(
        self, partition: int, key: bytes, value: bytes, headers: tuple[tuple[str, bytes], ...] = ()
    ) -> None:
        self.log.append(partition, key, value, headers)


class TestFakeDeadLetters(DeadLetterSinkContract):
    @pytest.fixture(autouse=True)
    def _store(self) -> None:
        self.store: list[Letter] = []

    def sink(self) -> FakeDeadLetters:
        return FakeDeadLetters(self.store)

    def letters(self, count: int) -> list[Letter]:
        return self.store
