"""The readiness probe's cache and its time bound (pure: fake probes, fake clock)."""

from __future__ import annotations

import threading
import time

import pytest

from provgraph.core.errors import UnavailableError
from provgraph.query.http.readiness import Readiness


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_answer_is_cached_for_ttl() -> None:
    calls: list[int] = []
    clock = Clock()
    readiness = Readiness(lambda: calls.append(1), ttl_s=2.0, clock=clock)
    readiness.check()
    clock.now = 1.9
    readiness.check()
    assert len(calls) == 1
    clock.now = 2.0
    readiness.check()
    assert len(calls) == 2
    readiness.close()


def test_failure_is_unavailable_and_cached() -> None:
    failing = True
    clock = Clock()

    def probe() -> None:
        if failing:
            raise OSError("connection refused")

    readiness = Readiness(probe, ttl_s=2.0, clock=clock)
    with pytest.raises(UnavailableError, match=r"^Neo4j is not reachable$") as caught:
        readiness.check()
    assert "connection refused" not in str(caught.value.body())  # logged, never answered
    failing = False
    with pytest.raises(UnavailableError):  # still the cached answer
        readiness.check()
    clock.now = 5.0
    readiness.check()
    readiness.close()


def test_hung_probe_answers_within_timeout() -> None:
    release = threading.Event()

    def hang() -> None:
        release.wait(5)

    readiness = Readiness(hang, ttl_s=0.0, timeout_s=0.2)
    started = time.monotonic()
    with pytest.raises(UnavailableError, match=r"did not answer within 0\.2 s"):
        readiness.check()
    with pytest.raises(UnavailableError, match="previous readiness probe"):
        readiness.check()  # no second probe piles up behind the hung one
    assert time.monotonic() - started < 3.0  # far below the 5 s hang: it did not wait for it
    release.set()
    readiness.close()
