"""Prometheus metrics of the ingest service, in a registry of each app (tests never collide)."""

from __future__ import annotations

from collections.abc import Collection

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import Scope

from provgraph.core.metrics import LATENCY_BUCKETS, OnAnswer, ServiceMetrics, route_template

_BATCH_BUCKETS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000)


class IngestMetrics(ServiceMetrics):
    """Counters and histograms of one ingest app, with their own `CollectorRegistry`."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        super().__init__(registry)
        self.accepted = Counter(
            "provgraph_ingest_events_accepted",
            "Events acknowledged by Kafka and answered 202.",
            registry=self.registry,
        )
        self.rejected = Counter(
            "provgraph_ingest_events_rejected",
            "Events refused, by reason (validation, too_many_events, event_log_unavailable, ...).",
            ["reason"],
            registry=self.registry,
        )
        self.requests = Counter(
            "provgraph_ingest_requests",
            "Answers of the routes that take events, by HTTP status (401 and 403 included).",
            ["status"],
            registry=self.registry,
        )
        self.produce_seconds = Histogram(
            "provgraph_ingest_produce_seconds",
            "Time from the first send to the last Kafka acknowledgement of one batch.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.batch_events = Histogram(
            "provgraph_ingest_batch_events",
            "Events per accepted batch.",
            buckets=_BATCH_BUCKETS,
            registry=self.registry,
        )

    def record_accepted(self, count: int, produce_seconds: float) -> None:
        """A batch of `count` events was acknowledged after `produce_seconds`."""
        self.accepted.inc(count)
        self.batch_events.observe(count)
        self.produce_seconds.observe(produce_seconds)

    def record_rejected(self, reason: str, count: int) -> None:
        """`count` events were refused for `reason` (an error code)."""
        if count > 0:
            self.rejected.labels(reason=reason).inc(count)

    def record_request(self, status: int) -> None:
        """One request to a route that takes events was answered with `status`."""
        self.requests.labels(status=str(status)).inc()

    def answers_of(self, routes: Collection[str]) -> OnAnswer:
        """An `AnswerObserver` callback that counts every answer of `routes` (path templates),
        whatever answered it: the route, or the token check before it."""

        def on_answer(scope: Scope, status: int, _seconds: float) -> None:
            if route_template(scope) in routes:
                self.record_request(status)

        return on_answer
