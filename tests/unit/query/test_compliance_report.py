"""The pure parts of the compliance report: which models are in service behind a taken-down
version (from `ReadModel.impact`'s items), and what a version's record is flagged for."""

from __future__ import annotations

import itertools
from typing import Any

from provgraph.query.read.compliance_reads import UpstreamData
from provgraph.query.read.model import EdgeView, GraphPath, ImpactItem, NodeView
from provgraph.query.recipes.compliance import flags, in_service

DATA, RUN = "dataset:p/lyrics@v1", "run:p-train"


def node(node_id: str, kind: str, deleted_at: str | None = None, **props: Any) -> NodeView:
    return NodeView(node_id, kind, "p", None, None, deleted_at, False, props)


def item(*nodes: NodeView) -> ImpactItem:
    edges = tuple(EdgeView(b.id, a.id, "X") for a, b in itertools.pairwise(nodes))
    return ImpactItem(node=nodes[-1], path=GraphPath(nodes=nodes, edges=edges))


def test_a_model_is_in_service_once_with_every_deployment_serving_it() -> None:
    data, run = node(DATA, "DatasetVersion"), node(RUN, "Run")
    live = node("model:p/m@2", "ModelVersion", status="approved")
    retired = node("model:p/m@1", "ModelVersion", status="retired")
    api, canary = node("deployment:p/api", "Deployment"), node("deployment:p/canary", "Deployment")
    items = [
        item(data, run, live),  # impact answers nearest first
        item(data, run, live, api),
        item(data, run, live, canary),
        item(data, run, retired, node("deployment:p/old", "Deployment")),  # served: in service
        item(data, run),  # a path to no model version names none
    ]
    assert in_service(items) == [
        {
            "model_version": "model:p/m@2",
            "status": "approved",
            "deployments": ["deployment:p/api", "deployment:p/canary"],
            "path": ["model:p/m@2", RUN, DATA],
        },
        {
            "model_version": "model:p/m@1",
            "status": "retired",
            "deployments": ["deployment:p/old"],
            "path": ["model:p/m@1", RUN, DATA],
        },
    ]
    assert in_service([]) == []


def test_flags_say_what_the_record_lacks() -> None:
    def data(source: dict[str, str], made_from: bool = False, deleted: bool = False) -> Any:
        at = "2026-05-04T09:15:00.000000Z" if deleted else None
        return UpstreamData(node(DATA, "DatasetVersion", at), source, made_from, 2)

    full = {"uri": "s3://x/", "obtained_by": "crawl", "licence": "MIT", "compliance_note": "ok"}
    assert flags(data(full)) == []
    assert flags(data({"uri": "s3://x/", "obtained_by": "crawl"})) == [
        "no licence",
        "no compliance note",
    ]
    assert flags(data({**full, "licence": ""})) == ["no licence"]
    assert flags(data({})) == ["no source"]
    assert flags(data({}, made_from=True)) == []  # its sources are upstream
    assert flags(data({}, made_from=True, deleted=True)) == ["taken down"]
    assert flags(data(full, deleted=True)) == ["taken down"]
