"""Jobs and runs: `GET /api/v1/namespaces/{namespace}/jobs[/{job}[/runs]]`,
`GET /api/v1/jobs/runs/{id}`. Jobs are OpenLineage jobs and provgraph experiments; a job's
runs are the runs part of it. A job name may hold `/` and `:` (sent encoded)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from provgraph.query.http.deps import MarquezDep, scope_for
from provgraph.query.http.marquez import shapes
from provgraph.query.http.marquez.common import PageQuery, marquez_router, not_found, or_404
from provgraph.query.ids import checked_id

router = marquez_router()


@router.get("/namespaces/{namespace}/jobs")
def list_jobs(
    request: Request, reader: MarquezDep, namespace: str, page: PageQuery
) -> dict[str, Any]:
    """The live jobs of a namespace, by name, each with its latest run."""
    found = reader.jobs(namespace, scope_for(request), limit=page.limit, offset=page.offset)
    return shapes.page("jobs", found, shapes.job)


@router.get("/namespaces/{namespace}/jobs/{job}")
def get_job(request: Request, reader: MarquezDep, namespace: str, job: str) -> dict[str, Any]:
    """One job, with its latest run (`latestRun`)."""
    found = reader.job(namespace, job, scope_for(request))
    return shapes.job(or_404(found, not_found("job", namespace=namespace, job=job)))


@router.get("/namespaces/{namespace}/jobs/{job}/runs")
def list_job_runs(
    request: Request, reader: MarquezDep, namespace: str, job: str, page: PageQuery
) -> dict[str, Any]:
    """The runs of a job, newest first."""
    scope = scope_for(request)
    found = reader.job_runs(namespace, job, scope, limit=page.limit, offset=page.offset)
    runs = or_404(found, not_found("job", namespace=namespace, job=job))
    return shapes.page("runs", runs, shapes.run)


@router.get("/jobs/runs/{run_id}")
def get_run(request: Request, reader: MarquezDep, run_id: str) -> dict[str, Any]:
    """One run by its runId: state, times, input and output dataset versions."""
    node_id = checked_id("runId", f"run:{run_id}")
    found = reader.run(node_id, scope_for(request))
    return shapes.run(or_404(found, not_found("run", run_id=run_id)))
