"""Marquez-compatible column lineage: `GET /api/v1/column-lineage?nodeId=&depth=&withDownstream=`.

Answers from the OpenLineage `columnLineage` facets the graph keeps (each dataset's latest), in
Marquez's shape: `{"graph": [{id, type: "DATASET_FIELD", data, inEdges, outEdges}]}`.

- `nodeId` is Marquez's `dataset:<namespace>:<name>` or `datasetField:<namespace>:<name>:<field>`
  (a `dataset:` id may name a field too: `dataset:<namespace>:<name>:<field>`), a provgraph
  dataset id, or Marquez's `job:<namespace>:<name>`: the columns of the datasets the job's
  latest run wrote (`marquez/column_starts.py`). Namespaces hold `:` (`s3://lake`), so an id
  is never split blindly: the whole id is looked up first (by `marquez_id`, then provgraph
  id), then the id without its last `:<segment>`, which is then the field. A versioned id
  (`...#<version>`) names no column here: only each dataset's latest facet is kept.
- `depth` is any integer, as in Marquez (default 20), walked within 1 and the service's
  `lineage_max_depth`.
- Node ids are `datasetField:<namespace>:<name>:<field>` by OpenLineage names (a dataset born
  in provgraph: its project and name).
- Edges are Marquez's column edges: a node's `inEdges` are `{origin: the node, destination:
  an input column}`, its `outEdges` `{origin: the node, destination: a column it feeds}`.
- `withDownstream=true` adds the columns fed by the start's; the default is upstream only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.deps import MarquezDep, ReaderDep, SettingsDep, scope_for
from provgraph.query.http.marquez.column_starts import JOB, Walk, job_outputs, walk_all
from provgraph.query.http.marquez.common import MARQUEZ_DEFAULT_DEPTH, Depth, or_404, walk_depth
from provgraph.query.http.marquez.ids import is_marquez_id
from provgraph.query.read.columns import OL_NAME, OL_NAMESPACE
from provgraph.query.read.model import (
    ColumnEdge,
    ColumnKey,
    ColumnLineage,
    Direction,
    NodeView,
    Scope,
)
from provgraph.query.read.ports import MarquezReads, ReadModel

DATASET, FIELD, VERSION = "dataset:", "datasetField:", "#"

router = APIRouter(prefix="/api/v1", tags=["marquez"], dependencies=[Depends(authenticate)])


@router.get("/column-lineage")
def get_column_lineage(
    request: Request,
    reader: ReaderDep,
    marquez: MarquezDep,
    settings: SettingsDep,
    node_id: Annotated[str, Query(alias="nodeId", min_length=1)],
    depth: Depth = None,
    with_downstream: Annotated[bool, Query(alias="withDownstream")] = False,
) -> dict[str, Any]:
    """The column lineage of a dataset, of one of its fields, or of a job's outputs, up to
    `depth` hops."""
    scope = scope_for(request)
    limit = settings.lineage_default_limit
    hops = walk_depth(depth, MARQUEZ_DEFAULT_DEPTH, settings.lineage_max_depth)
    direction = Direction.BOTH if with_downstream else Direction.UPSTREAM

    def walk(dataset_id: str, field: str | None = None) -> ColumnLineage | None:
        return reader.column_lineage(
            dataset_id, scope, field=field, direction=direction, depth=hops, limit=limit
        )

    if node_id.startswith(JOB):
        found = _of_job(node_id, reader, marquez, scope, walk, limit)
    else:
        candidates = root_candidates(node_id)
        views = reader.datasets_by_key([key for key, _ in candidates], scope)
        start = next(((v, f) for v, (_, f) in zip(views, candidates, strict=True) if v), None)
        found = walk(start[0].id, start[1]) if start is not None else None
    if found is None and VERSION in node_id:
        raise InvalidArgumentError(
            "nodeId names a version (#<version>): column lineage is served for the current "
            "columns only (each dataset's latest columnLineage facet); ask without #<version>",
            node_id=node_id,
        )
    missing = NotFoundError(f"no dataset, field or job {node_id!r}", node_id=node_id)
    return marquez_column_graph(or_404(found, missing))


def _of_job(
    node_id: str,
    reader: ReadModel,
    marquez: MarquezReads,
    scope: Scope,
    walk: Walk,
    limit: int,
) -> ColumnLineage | None:
    if not is_marquez_id(node_id):
        raise _malformed(node_id)
    found = job_outputs(node_id, reader, marquez, scope)
    if found is None:
        return None
    job, outputs = found
    return walk_all(job, outputs, walk, limit)


def root_candidates(node_id: str) -> list[tuple[str, str | None]]:
    """(dataset key, field) readings of a `nodeId`, the likeliest first: the whole id as a
    dataset, then the id without its last `:` segment as a dataset and that segment as the
    field. `datasetField:` ids always name a field."""
    if node_id.startswith(FIELD):
        head, sep, field = node_id[len(FIELD) :].rpartition(":")
        if not (sep and head and field):
            raise _malformed(node_id)
        return [(DATASET + head, field)]
    if not node_id.startswith(DATASET) or len(node_id) == len(DATASET):
        raise _malformed(node_id)
    readings: list[tuple[str, str | None]] = [(node_id, None)]
    head, sep, field = node_id[len(DATASET) :].rpartition(":")
    if sep and head and field:
        readings.append((DATASET + head, field))
    return readings


def _malformed(node_id: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        "nodeId must be dataset:<namespace>:<name>[:<field>], "
        "datasetField:<namespace>:<name>:<field>, job:<namespace>:<name> "
        "or a provgraph dataset id",
        node_id=node_id,
    )


def marquez_names(dataset: NodeView) -> tuple[str, str]:
    """Marquez's (namespace, name) of a dataset: its OpenLineage names when it has them."""
    props = dataset.props
    namespace, name = props.get(OL_NAMESPACE), props.get(OL_NAME)
    if isinstance(namespace, str) and isinstance(name, str):
        return namespace, name
    return dataset.project or "", str(props.get("name") or dataset.id)


def marquez_column_graph(found: ColumnLineage) -> dict[str, Any]:
    """A ColumnLineage in Marquez's shape, nodes by (depth, id)."""
    names = {node.key.dataset: marquez_names(node.dataset) for node in found.nodes}
    ids = {node.key: _field_id(names[node.key.dataset], node.key.field) for node in found.nodes}
    inputs: dict[ColumnKey, list[ColumnEdge]] = defaultdict(list)
    outputs: dict[ColumnKey, list[ColumnEdge]] = defaultdict(list)
    for edge in found.edges:
        inputs[edge.output].append(edge)
        outputs[edge.input].append(edge)
    graph = []
    for node in sorted(found.nodes, key=lambda n: (n.depth, ids[n.key])):
        namespace, name = names[node.key.dataset]
        feeding = inputs[node.key]
        first = feeding[0] if feeding else None
        graph.append(
            {
                "id": ids[node.key],
                "type": "DATASET_FIELD",
                "data": {
                    "namespace": namespace,
                    "dataset": name,
                    "datasetVersion": None,
                    "field": node.key.field,
                    "fieldType": node.field_type or "",
                    "transformationDescription": first and first.transformation_description,
                    "transformationType": first and first.transformation_type,
                    "inputFields": [_input_field(e, names) for e in feeding],
                },
                "inEdges": [
                    {"origin": ids[node.key], "destination": ids[e.input]} for e in feeding
                ],
                "outEdges": [
                    {"origin": ids[node.key], "destination": ids[e.output]}
                    for e in outputs[node.key]
                ],
            }
        )
    return {"graph": graph, "truncated": found.truncated}


def _field_id(names: tuple[str, str], field: str) -> str:
    return f"{FIELD}{names[0]}:{names[1]}:{field}"


def _input_field(edge: ColumnEdge, names: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    namespace, name = names[edge.input.dataset]
    return {
        "namespace": namespace,
        "dataset": name,
        "datasetVersion": None,
        "field": edge.input.field,
        "transformationDescription": edge.transformation_description,
        "transformationType": edge.transformation_type,
    }
