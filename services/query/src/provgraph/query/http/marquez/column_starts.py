"""Column lineage from a job, as Marquez answers `GET /api/v1/column-lineage?nodeId=job:...`:
the columns of the datasets the job's latest run wrote, each walked, the walks merged.

A job's Marquez id `job:<namespace>:<name>` may hold `:` in both parts: an OpenLineage-born
job is found by its whole `marquez_id`; a job born in provgraph (an experiment) is
`job:<project>:<key>`, and a project never holds `:`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from provgraph.query.http.marquez.ids import name_of, namespace_of
from provgraph.query.read.model import (
    ColumnEdge,
    ColumnKey,
    ColumnLineage,
    ColumnNode,
    NodeView,
    Scope,
)
from provgraph.query.read.ports import MarquezReads, ReadModel

JOB = "job:"

Walk = Callable[[str], ColumnLineage | None]
"""The column-lineage walk from one Dataset id (every column of it)."""


def job_outputs(
    node_id: str, reader: ReadModel, marquez: MarquezReads, scope: Scope
) -> tuple[NodeView, list[str]] | None:
    """The job named by the Marquez id `node_id` and the ids of the Datasets its latest run
    wrote (by id); None when the caller can read no such job. `node_id` has Marquez's form
    (`is_marquez_id`: both parts non-empty)."""
    resolved = marquez.resolve_marquez_id(node_id, scope)
    view = reader.node(resolved, scope) if resolved is not None else None
    if view is not None:
        namespace, name = namespace_of(view), name_of(view)
    else:
        namespace, _, name = node_id[len(JOB) :].partition(":")
    job = marquez.job(namespace, name, scope)
    if job is None:
        return None
    run = job.latest_run
    return job.job, sorted({ref.dataset.id for ref in run.outputs}) if run is not None else []


def walk_all(root: NodeView, starts: Sequence[str], walk: Walk, limit: int) -> ColumnLineage:
    """The walks from every dataset of `starts` as one column graph rooted at `root` (the job):
    each column at its smallest depth, each edge once, at most `limit` columns (then
    `truncated`, and no further start is walked)."""
    nodes: dict[ColumnKey, ColumnNode] = {}
    edges: dict[tuple[ColumnKey, ColumnKey], ColumnEdge] = {}
    truncated = False
    for start in starts:
        if len(nodes) >= limit:
            truncated = True
            break
        found = walk(start)
        if found is None:  # unreadable since it was listed: as if never written
            continue
        truncated = truncated or found.truncated
        for node in found.nodes:
            kept = nodes.get(node.key)
            if kept is None or node.depth < kept.depth:
                nodes[node.key] = node
        for edge in found.edges:
            edges.setdefault((edge.input, edge.output), edge)
    if len(nodes) > limit:
        truncated = True
        kept_keys = sorted(nodes, key=lambda key: (nodes[key].depth, key))[:limit]
        nodes = {key: nodes[key] for key in kept_keys}
    inside = [e for e in edges.values() if e.input in nodes and e.output in nodes]
    return ColumnLineage(root, None, tuple(nodes.values()), tuple(inside), truncated)
