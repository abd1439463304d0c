"""Prometheus metrics of the ingest service, in a registry of each app (tests never collide)."""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)

# Produce latency: a local broker answers in milliseconds, a struggling cluster in seconds.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BATCH_BUCKETS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000)


class IngestMetrics:
    """Counters and histograms of one ingest app, with their own `CollectorRegistry`."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
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
            "POST /v1/events requests, by HTTP status.",
            ["status"],
            registry=self.registry,
        )
        self.produce_seconds = Histogram(
            "provgraph_ingest_produce_seconds",
            "Time from the first send to the last Kafka acknowledgement of one batch.",
            buckets=_LATENCY_BUCKETS,
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
        """One POST /v1/events was answered with `status`."""
        self.requests.labels(status=str(status)).inc()

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
