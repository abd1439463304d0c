"""Marquez-compatible REST lineage: `GET /api/v1/lineage?nodeId=<id>&depth=<n>`.

Tools that already speak Marquez's lineage API (its web UI, scripts) can read provgraph's
graph. The answer has Marquez's shape, `{"graph": [{id, type, data, inEdges, outEdges}]}`:

- `nodeId` is a provgraph id or a Marquez id (`dataset:<namespace>:<name>`,
  `job:<namespace>:<name>`, the `marquez_id` an OpenLineage-born Dataset or Job keeps); node
  ids in the answer are Marquez ids for those nodes and provgraph ids for every other
  (`dataset:<project>/<name>@<version>`, `run:<id>`), so any of them can be asked next;
- `type` is DATASET (Dataset, DatasetVersion), JOB (Run, Experiment, Evaluation, Job), MODEL
  (Model, ModelVersion), and CHECKPOINT, DEPLOYMENT, ENVIRONMENT for the rest;
- around a job (or an experiment), as in Marquez, the answer holds what its runs read and
  wrote: the job's runs are walked upstream too, and every dataset version the job's runs
  generated is shown with its dataset; around a dataset (or a version), every dataset version
  is shown with its dataset, so the datasets downstream are there by their Marquez ids;
- edges follow the data flow, as in Marquez: `origin` is the source and `destination` the
  derived node, so provgraph's (derived)-[:REL]->(source) becomes {origin: source,
  destination: derived}; `inEdges` of a node are the edges it is the destination of.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fastapi import APIRouter, Depends, Request

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.http.deps import MarquezDep, NodeIdParam, ReaderDep, SettingsDep, scope_for
from provgraph.query.http.marquez.common import Depth, or_404, walk_depth
from provgraph.query.http.marquez.ids import answer_id, is_marquez_id, name_of, namespace_of
from provgraph.query.http.marquez_around import DATASET_TYPES, around_dataset
from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView, Scope
from provgraph.query.read.ports import ReadModel

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
    marquez: MarquezDep,
    settings: SettingsDep,
    node_id: NodeIdParam,
    depth: Depth = None,
) -> dict[str, Any]:
    """The lineage around `nodeId`, both directions, up to `depth` (default: settings; any
    integer, walked within 1 and the settings' maximum, as `walk_depth` reads it)."""
    depth = walk_depth(depth, settings.lineage_default_depth, settings.lineage_max_depth)
    scope = scope_for(request)
    missing = NotFoundError(f"no node {node_id!r}", node_id=node_id)
    resolved = marquez.resolve_marquez_id(node_id, scope) if is_marquez_id(node_id) else node_id
    root, limit = or_404(resolved, missing), settings.lineage_default_limit
    found = reader.lineage(root, scope, direction=Direction.BOTH, depth=depth, limit=limit)
    lineage = or_404(found, missing)
    if lineage.root.type in JOB_TYPES:
        lineage = _around_job(lineage, reader, scope, depth, limit)
    elif lineage.root.type in DATASET_TYPES:
        lineage = around_dataset(lineage, reader, scope)
    return marquez_graph(lineage)


JOB_TYPES = frozenset({"Job", "Experiment"})
"""Nodes that stand for their runs in a Marquez answer (Marquez's lineage is jobs and datasets)."""
_MAX_JOB_RUNS = 20


def _around_job(
    lineage: Lineage, reader: ReadModel, scope: Scope, depth: int, limit: int
) -> Lineage:
    """`lineage` of a job plus, for its latest runs (by id, at most 20), their upstream (what
    they read) and the dataset of each version they generated (one step up from it)."""
    root = lineage.root.id
    runs = sorted({e.src for e in lineage.edges if e.dst == root and e.type == "PART_OF"})
    outputs = {e.src for e in lineage.edges if e.dst in runs and e.type == "GENERATED_BY"}
    parts = [lineage]
    for start, steps in [
        *((run, depth - 1) for run in runs[-_MAX_JOB_RUNS:]),
        *((version, 1) for version in sorted(outputs)),
    ]:
        if steps < 1:
            continue
        found = reader.lineage(start, scope, direction=Direction.UPSTREAM, depth=steps, limit=limit)
        if found is not None:
            parts.append(found)
    return _merged(parts)


def _merged(parts: list[Lineage]) -> Lineage:
    """One Lineage of several walks: the first's root; each node at its smallest depth from
    the root (a node first reached from a run counts one step more)."""
    first = parts[0]
    nodes: dict[str, NodeView] = {}
    depths: dict[str, int] = dict(first.depths)
    edges: dict[tuple[str, str, str], EdgeView] = {}
    for offset, part in enumerate(parts):
        base = 0 if offset == 0 else depths.get(part.root.id, 1)
        for node in (part.root, *part.nodes):
            if node.id != first.root.id:
                nodes.setdefault(node.id, node)
            reached = base + part.depths.get(node.id, 0)
            depths[node.id] = min(depths.get(node.id, reached), reached)
        for edge in part.edges:
            edges.setdefault((edge.src, edge.type, edge.dst), edge)
    return Lineage(
        root=first.root,
        nodes=tuple(nodes.values()),
        depths=depths,
        edges=tuple(edges.values()),
        truncated=any(part.truncated for part in parts),
    )


def marquez_graph(lineage: Lineage) -> dict[str, Any]:
    """A Lineage in Marquez's shape; root first, then by depth and id (a stable order)."""
    nodes = {node.id: node for node in (lineage.root, *lineage.nodes)}
    ids = {node_id: answer_id(node) for node_id, node in nodes.items()}
    ins: dict[str, list[dict[str, str]]] = defaultdict(list)
    outs: dict[str, list[dict[str, str]]] = defaultdict(list)
    for edge in _flow_edges(lineage.edges, nodes.keys()):
        outs[edge["origin"]].append(edge)
        ins[edge["destination"]].append(edge)
    order = sorted(nodes, key=lambda i: (i != lineage.root.id, lineage.depths.get(i, 0), i))
    graph = [
        {
            "id": ids[node_id],
            "type": marquez_type(nodes[node_id].type),
            "data": _data(nodes[node_id], lineage.depths.get(node_id)),
            "inEdges": [_renamed(edge, ids) for edge in ins[node_id]],
            "outEdges": [_renamed(edge, ids) for edge in outs[node_id]],
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


def _renamed(edge: dict[str, str], ids: dict[str, str]) -> dict[str, str]:
    return {"origin": ids[edge["origin"]], "destination": ids[edge["destination"]]}


def _data(node: NodeView, depth: int | None) -> dict[str, Any]:
    props = dict(node.props)
    marquez = answer_id(node) != node.id  # an OpenLineage-born dataset or job: Marquez's keys
    return {
        "id": answer_id(node),
        "type": node.type,
        "namespace": namespace_of(node) if marquez else node.project,
        "name": name_of(node) if marquez else props.get("name", node.id),
        "version": props.get("version"),
        "createdAt": node.first_seen_at,
        "updatedAt": node.last_event_at,
        "deletedAt": node.deleted_at,
        "placeholder": node.placeholder,
        "depth": depth,
        "properties": props,
    }
