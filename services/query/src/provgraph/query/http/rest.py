"""Marquez-compatible REST lineage: `GET /api/v1/lineage?nodeId=<id>&depth=<n>`.

Tools that already speak Marquez's lineage API (its web UI, scripts) can read provgraph's
graph. The answer has Marquez's shape, `{"graph": [{id, type, data, inEdges, outEdges}]}`:

- node ids are provgraph's ids as they are (`dataset:<project>/<name>@<version>`, `run:<id>`):
  Marquez's own `dataset:<namespace>:<name>` ids are opaque strings to its clients;
- `type` is DATASET (Dataset, DatasetVersion), JOB (Run, Experiment, Evaluation, Job), MODEL
  (Model, ModelVersion), and CHECKPOINT, DEPLOYMENT, ENVIRONMENT for the rest;
- edges follow the data flow, as in Marquez: `origin` is the source and `destination` the
  derived node, so provgraph's (derived)-[:REL]->(source) becomes {origin: source,
  destination: derived}; `inEdges` of a node are the edges it is the destination of.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.deps import NodeIdParam, ReaderDep, SettingsDep, scope_for
from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView

MARQUEZ_TYPES = {
    "Dataset": "DATASET",
    "DatasetVersion": "DATASET",
    "Run": "JOB",
    "Experiment": "JOB",
    "Evaluation": "JOB",
    "Job": "JOB",
    "Model": "MODEL",
    "ModelVersion": "MODEL",
    "Checkpoint": "CHECKPOINT",
    "Deployment": "DEPLOYMENT",
    "Environment": "ENVIRONMENT",
}

router = APIRouter(prefix="/api/v1", tags=["marquez"], dependencies=[Depends(authenticate)])


@router.get("/lineage")
def get_lineage(
    request: Request,
    reader: ReaderDep,
    settings: SettingsDep,
    node_id: NodeIdParam,
    depth: Annotated[int | None, Query()] = None,
) -> dict[str, Any]:
    """The lineage around `nodeId`, both directions, up to `depth` (default, max: settings)."""
    depth = settings.lineage_default_depth if depth is None else depth
    if not 1 <= depth <= settings.lineage_max_depth:
        raise InvalidArgumentError(
            f"depth must be between 1 and {settings.lineage_max_depth}, got {depth}",
            depth=depth,
            max_depth=settings.lineage_max_depth,
        )
    lineage = reader.lineage(
        node_id,
        scope_for(request),
        direction=Direction.BOTH,
        depth=depth,
        limit=settings.lineage_default_limit,
    )
    if lineage is None:
        raise NotFoundError(f"no node {node_id!r}", node_id=node_id)
    return marquez_graph(lineage)


def marquez_graph(lineage: Lineage) -> dict[str, Any]:
    """A Lineage in Marquez's shape; root first, then by depth and id (a stable order)."""
    nodes = {node.id: node for node in (lineage.root, *lineage.nodes)}
    ins: dict[str, list[dict[str, str]]] = defaultdict(list)
    outs: dict[str, list[dict[str, str]]] = defaultdict(list)
    for edge in _flow_edges(lineage.edges, nodes.keys()):
        outs[edge["origin"]].append(edge)
        ins[edge["destination"]].append(edge)
    order = sorted(nodes, key=lambda i: (i != lineage.root.id, lineage.depths.get(i, 0), i))
    graph = [
        {
            "id": node_id,
            "type": marquez_type(nodes[node_id].type),
            "data": _data(nodes[node_id], lineage.depths.get(node_id)),
            "inEdges": ins[node_id],
            "outEdges": outs[node_id],
        }
        for node_id in order
    ]
    return {"graph": graph, "truncated": lineage.truncated}


def marquez_type(provgraph_type: str) -> str:
    """Marquez's node type of a provgraph label (unknown labels: the label in upper case)."""
    return MARQUEZ_TYPES.get(provgraph_type, provgraph_type.upper())


def _flow_edges(edges: tuple[EdgeView, ...], known: Any) -> list[dict[str, str]]:
    """Distinct data-flow edges (source -> derived) between nodes of the answer."""
    seen: set[tuple[str, str]] = set()
    flow = []
    for edge in sorted(edges, key=lambda e: (e.dst, e.src, e.type)):
        pair = (edge.dst, edge.src)
        if pair in seen or edge.src not in known or edge.dst not in known:
            continue  # Marquez edges carry no type: two relations between a pair are one edge
        seen.add(pair)
        flow.append({"origin": edge.dst, "destination": edge.src})
    return flow


def _data(node: NodeView, depth: int | None) -> dict[str, Any]:
    props = dict(node.props)
    return {
        "id": node.id,
        "type": node.type,
        "namespace": node.project,
        "name": props.get("name", node.id),
        "version": props.get("version"),
        "createdAt": node.first_seen_at,
        "updatedAt": node.last_event_at,
        "deletedAt": node.deleted_at,
        "placeholder": node.placeholder,
        "depth": depth,
        "properties": props,
    }
