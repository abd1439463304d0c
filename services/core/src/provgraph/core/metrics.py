"""Prometheus metrics of a service: a registry of each app, so tests never collide; and the one
ASGI middleware that sees every answer of an app, whatever produced it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# A local broker or a lookup answers in milliseconds, a struggling cluster or a deep
# traversal in seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# The route label of a request no route matched (an unknown path).
UNMATCHED = "unmatched"

# Told (the request's scope, the status answered, the seconds it took) once per HTTP request.
OnAnswer = Callable[[Scope, int, float], None]


class ServiceMetrics:
    """The base of a service's metrics: its own `CollectorRegistry` and its exposition."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class AnswerObserver:
    """Pure ASGI middleware: reports the status of every HTTP answer to `on_answer`.

    It wraps the routes, so it sees what a route answered and also what answered before any
    route ran: an authentication dependency (401, 403), an unknown path (404), a wrong method
    (405), an error handler; 500 when the app failed before answering. Streaming-safe.
    """

    def __init__(self, app: ASGIApp, on_answer: OnAnswer) -> None:
        self.app = app
        self.on_answer = on_answer

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
            self.on_answer(scope, status, time.perf_counter() - started)


def route_template(scope: Scope) -> str:
    """The matched route's path template (`/api/v1/lineage`, not the raw URL), else UNMATCHED:
    a label set that stays bounded whatever the callers send."""
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
