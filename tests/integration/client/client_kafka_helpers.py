"""Reading a topic back through the contract (imported by name: test dirs are not packages)."""

from __future__ import annotations

import time
from collections import defaultdict
from uuid import UUID

from kafka import KafkaConsumer

from provgraph.schemas import Event, parse_event


def read_topic(
    bootstrap: str, topic: str, expected: int, timeout_s: float = 30.0
) -> list[tuple[bytes, Event]]:
    """Every (key, event) of `topic` once at least `expected` arrived (or the timeout ran out)."""
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=2_000,
    )
    out: list[tuple[bytes, Event]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(out) < expected and time.monotonic() < deadline:
            for message in consumer:
                out.append((message.key, parse_event(message.value)))
        # anything still in flight (duplicates) arrives within one more poll
        for message in consumer:
            out.append((message.key, parse_event(message.value)))
    finally:
        consumer.close()
    return out


def assert_exactly_as_emitted(emitted: list[Event], received: list[tuple[bytes, Event]]) -> None:
    """Per subject, the received events (first occurrence of each event_id) equal the emitted
    ones in the same order; a duplicate is only ever a resend of the same event."""
    by_id = {event.event_id: event for event in emitted}
    got: dict[str, list[UUID]] = defaultdict(list)
    for key, event in received:
        assert key == event.subject.encode()
        assert by_id.get(event.event_id) == event, "an event arrived changed or from nowhere"
        if event.event_id not in got[event.subject]:
            got[event.subject].append(event.event_id)
    want: dict[str, list[UUID]] = defaultdict(list)
    for event in emitted:
        want[event.subject].append(event.event_id)
    assert dict(got) == dict(want)
