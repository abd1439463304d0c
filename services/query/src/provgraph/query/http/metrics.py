"""Prometheus metrics of the query service, in a registry of each app (tests never collide).

Requests are labelled by route template (`/api/v1/lineage`, not the raw URL), so the label set
stays bounded whatever the callers send. Every answer is counted, 401 and 403 included
(`provgraph.core.metrics.AnswerObserver`).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import Scope

from provgraph.core.metrics import LATENCY_BUCKETS, ServiceMetrics, route_template


class QueryMetrics(ServiceMetrics):
    """Request counters and latency histogram of one query app, with their own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        super().__init__(registry)
        self.requests = Counter(
            "provgraph_query_requests",
            "HTTP requests, by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "provgraph_query_request_seconds",
            "Time to answer an HTTP request, by route template and method.",
            ["route", "method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.cypher_refused = Counter(
            "provgraph_query_cypher_refused",
            "Cypher queries refused by the guard.",
            registry=self.registry,
        )

    def record(self, route: str, method: str, status: int, seconds: float) -> None:
        """One request answered."""
        self.requests.labels(route=route, method=method, status=str(status)).inc()
        self.latency.labels(route=route, method=method).observe(seconds)

    def observe(self, scope: Scope, status: int, seconds: float) -> None:
        """One HTTP answer, as `AnswerObserver` reports it."""
        self.record(route_template(scope), scope["method"], status, seconds)
