"""The fake transport the emitter's unit tests use passes the transport contract."""

from __future__ import annotations

import pytest
from client_fakes import FakeTransport
from contracts.transport import Receiver, TransportContract

from provgraph.client.transport import Transport
from provgraph.schemas import Event


class TestFakeTransport(TransportContract):
    @pytest.fixture()
    def receiver(self) -> Receiver:
        fake = FakeTransport()

        def delivered(count: int) -> list[Event]:
            return fake.log.events

        return Receiver(fake, delivered)

    @pytest.fixture()
    def unreachable(self) -> Transport:
        fake = FakeTransport()
        fake.up = False
        return fake
