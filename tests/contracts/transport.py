"""The SDK transport port's contract: every transport delivers, orders and refuses alike.

One abstract test class that each transport's test runs: the unit tests on the fake transport
of tests/unit/client/client_fakes.py, the integration tests on `KafkaTransport` (the real
broker) and `HttpTransport` (the ingest app served over HTTP, in front of the real broker).
Delivered events are read back from the receiver, never from the transport.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from contracts.eventlog import batch, metric_event, oversized_event
from provgraph.client.errors import RejectedError, TransportError
from provgraph.client.transport import Transport
from provgraph.schemas import Event

Delivered = Callable[[int], list[Event]]
"""Every event a receiver got so far, once at least the given number arrived (or a wait ran
out)."""


@dataclass
class Receiver:
    """A transport and what its receiver got."""

    transport: Transport
    delivered: Delivered


def ids_by_subject(events: list[Event]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for event in events:
        if str(event.event_id) not in out[event.subject]:  # a resend is not a new event
            out[event.subject].append(str(event.event_id))
    return dict(out)


class TransportContract:
    """What every `Transport` must do; subclass it once per transport.

    A subclass provides the fixtures `receiver` (a transport in front of a fresh receiver,
    closed afterwards) and `unreachable` (a transport whose receiver is not there).
    """

    def test_a_batch_arrives_in_order_per_subject(self, receiver: Receiver) -> None:
        events = batch()
        receiver.transport.send(events)
        assert ids_by_subject(receiver.delivered(len(events))) == ids_by_subject(events)

    def test_an_empty_batch_sends_nothing(self, receiver: Receiver) -> None:
        receiver.transport.send([])
        first = metric_event(0, 0)
        receiver.transport.send([first])
        assert receiver.delivered(1) == [first]

    def test_a_refused_event_is_rejected_and_the_others_delivered(self, receiver: Receiver) -> None:
        events = [metric_event(0, 0), oversized_event(), metric_event(1, 0)]
        with pytest.raises(RejectedError) as raised:
            receiver.transport.send(events)
        assert events[1] in raised.value.events
        kept = [e for e in events if e not in raised.value.events]
        assert ids_by_subject(receiver.delivered(len(kept))) == ids_by_subject(kept)

    def test_an_absent_receiver_is_a_transient_error(self, unreachable: Transport) -> None:
        with pytest.raises(TransportError) as raised:
            unreachable.send([metric_event(0, 0)])
        assert not isinstance(raised.value, RejectedError)
