"""How the ingest service answers for the event log: typed HTTP errors, the readiness cache."""

from __future__ import annotations

from typing import Any

import pytest
from kafka.errors import KafkaTimeoutError

from provgraph.client.errors import RejectedError, TransportError
from provgraph.ingest.http.errors import (
    EventLogError,
    EventLogUnavailableError,
    NotReadyError,
    append_failed,
)
from provgraph.ingest.http.readiness import ReadinessCache


def _timed_out() -> TransportError:
    try:
        raise TransportError("no ack") from KafkaTimeoutError("no ack")
    except TransportError as exc:
        return exc


@pytest.mark.parametrize(
    ("failure", "error", "status"),
    [
        (_timed_out(), EventLogUnavailableError, 503),
        (RejectedError("too big", []), EventLogError, 500),
    ],
)
def test_event_log_failures_become_typed_errors(
    failure: TransportError, error: type[EventLogError], status: int
) -> None:
    answer = append_failed(failure, "log", retry_after_s=9)
    assert type(answer) is error and answer.status == status
    assert answer.details["topic"] == "log"
    if status == 503:
        assert answer.headers() == {"Retry-After": "9"}
        assert answer.details["kafka_error"] == "KafkaTimeoutError"


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_readiness_is_cached_for_the_ttl() -> None:
    calls: list[float] = []
    clock = _Clock()
    outcomes: list[Any] = [None, NotReadyError("down")]

    def check() -> None:
        calls.append(clock.now)
        outcome = outcomes.pop(0)
        if outcome is not None:
            raise outcome

    cache = ReadinessCache(check, ttl_s=2.0, clock=clock)
    cache.check()
    clock.now += 1.9
    cache.check()  # still the cached good answer
    assert len(calls) == 1
    clock.now += 0.2
    with pytest.raises(NotReadyError):
        cache.check()
    with pytest.raises(NotReadyError):
        cache.check()  # the cached bad answer
    assert len(calls) == 2
