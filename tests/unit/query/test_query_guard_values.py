"""Result values as JSON, and the Marquez conversion of a Lineage (both pure)."""

from __future__ import annotations

import json

from neo4j.spatial import CartesianPoint
from neo4j.time import Date, DateTime, Duration

from provgraph.query.http.rest import marquez_graph
from provgraph.query.http.values import to_json
from provgraph.query.read.model import EdgeView, Lineage, NodeView


def test_scalars_are_strict_json() -> None:
    values = [
        1,
        1.5,
        float("nan"),
        float("inf"),
        "s",
        None,
        True,
        b"\x00\x01",
        Date(2026, 1, 5),
        DateTime(2026, 1, 5, 9, 0, 0),
        Duration(days=1),
        CartesianPoint((1.0, 2.0)),
        {"k": [1, (2, 3)]},
    ]
    converted = to_json(values)
    json.dumps(converted, allow_nan=False)  # raises on NaN/inf or unknown types
    assert converted[2:4] == ["nan", "inf"]
    assert converted[7] == "AAE="
    assert converted[8] == "2026-01-05"
    assert converted[10] == "P1D"
    assert converted[11] == {"srid": 7203, "coordinates": [1.0, 2.0]}
    assert converted[12] == {"k": [1, [2, 3]]}


def _node(node_id: str, type_: str, **props: object) -> NodeView:
    return NodeView(
        id=node_id,
        type=type_,
        project="p",
        first_seen_at="2026-01-05T09:00:00.000000Z",
        last_event_at="2026-01-05T10:00:00.000000Z",
        deleted_at=None,
        placeholder=False,
        props={"id": node_id, **props},
    )


def test_marquez_shape_follows_the_data_flow() -> None:
    ds = _node("dataset:p/web@v2", "DatasetVersion", name="web", version="v2")
    run = _node("run:p-1", "Run", name="pretrain")
    model = _node("model:p/base@1", "ModelVersion", name="base", version="1")
    lineage = Lineage(
        root=run,
        nodes=(model, ds),
        depths={run.id: 0, ds.id: 1, model.id: 1},
        edges=(
            EdgeView(run.id, ds.id, "USED", {"role": "train"}),
            EdgeView(model.id, run.id, "GENERATED_BY"),
            EdgeView(model.id, "run:elsewhere", "GENERATED_BY"),  # end outside the answer
        ),
        truncated=False,
    )
    answer = marquez_graph(lineage)
    assert [(n["id"], n["type"]) for n in answer["graph"]] == [
        ("run:p-1", "JOB"),
        ("dataset:p/web@v2", "DATASET"),
        ("model:p/base@1", "MODEL"),
    ]
    by_id = {n["id"]: n for n in answer["graph"]}
    used = {"origin": ds.id, "destination": run.id}
    generated = {"origin": run.id, "destination": model.id}
    assert by_id[run.id]["inEdges"] == [used]
    assert by_id[run.id]["outEdges"] == [generated]
    assert by_id[ds.id]["inEdges"] == [] and by_id[ds.id]["outEdges"] == [used]
    assert by_id[model.id]["inEdges"] == [generated] and by_id[model.id]["outEdges"] == []
    data = by_id[ds.id]["data"]
    assert (data["namespace"], data["name"], data["version"], data["depth"]) == (
        "p",
        "web",
        "v2",
        1,
    )
    assert data["type"] == "DatasetVersion"
    assert answer["truncated"] is False
