"""Probes: liveness, readiness (Neo4j answers) and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response

from provgraph.query.http.deps import Context, ReadinessDep

router = APIRouter(tags=["probes"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is alive and serving HTTP."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(readiness: ReadinessDep) -> dict[str, str]:
    """Neo4j answered `RETURN 1` within 2 s (answer cached for about 2 s)."""
    readiness.check()
    return {"status": "ready", "neo4j": "reachable"}


@router.get("/metrics")
def metrics(context: Context) -> Response:
    """Prometheus text exposition of this app's metrics."""
    payload, content_type = context.metrics.render()
    return Response(content=payload, media_type=content_type)
