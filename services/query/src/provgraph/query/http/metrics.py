"""Prometheus metrics of the query service, in a registry of each app (tests never collide).

Requests are labelled by route template (`/api/v1/lineage`, not the raw URL), so the label set
stays bounded whatever the callers send.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provgraph.core.metrics import LATENCY_BUCKETS, ServiceMetrics

UNMATCHED = "unmatched"


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


class MetricsMiddleware:
    """Pure ASGI middleware: counts and times every HTTP request (streaming-safe)."""

    def __init__(self, app: ASGIApp, metrics: QueryMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets if the app fails before answering

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = _route_template(scope)
            self.metrics.record(route, scope["method"], status, time.perf_counter() - started)


def _route_template(scope: Scope) -> str:
    # The router stores the matched route in the (shared) scope dict. FastAPI keeps routes of
    # an included router unprefixed there; its effective route context holds the full path.
    fastapi_scope = scope.get("fastapi")
    effective: Any = (
        fastapi_scope.get("effective_route_context") if isinstance(fastapi_scope, dict) else None
    )
    for route in (effective, scope.get("route")):
        path = getattr(route, "path", None)
        if isinstance(path, str) and path:
            return path
    return UNMATCHED
