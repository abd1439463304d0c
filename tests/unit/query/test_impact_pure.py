"""Impact's evaluation results (recipes/impact.py): a row per metric, oldest first, read as
the model version card reads them (EVALUATED, then USED), and the CLI's text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from provgraph.query.read.model import (
    Direction,
    EdgeView,
    GraphPath,
    ImpactItem,
    NodeView,
    Scope,
)
from provgraph.query.recipes.impact import (
    evaluation_results,
    impact_answer,
    render_impact,
    results_of,
)
from provgraph.schemas.storage import encode_json, json_key


def _node(id: str, type: str, **props: Any) -> NodeView:
    return NodeView(id, type, "p", None, None, None, False, props)


def _evaluation(id: str, at: str, metrics: dict[str, Any] | None, **props: Any) -> NodeView:
    stored = {"evaluated_at": at, "suite": "s", **props}
    if metrics is not None:
        stored[json_key("metrics")] = encode_json(metrics)
    return _node(id, "Evaluation", **stored)


class _Reader:
    """The two reads the recipe makes, over a fixed graph; it records what was asked."""

    def __init__(self, evaluated: dict[str, list[NodeView]], used: dict[str, list[str]]) -> None:
        self.evaluated, self.used = evaluated, used
        self.asked: list[tuple[str, Direction, list[str]]] = []

    def neighbours(
        self, ids: Sequence[str], rel: str, direction: Direction, scope: Scope, as_of: Any = None
    ) -> list[list[tuple[EdgeView, NodeView]]]:
        self.asked.append((rel, direction, list(ids)))
        if rel == "EVALUATED":
            return [[(EdgeView(e.id, i, rel), e) for e in self.evaluated.get(i, [])] for i in ids]
        return [
            [(EdgeView(i, d, rel), _node(d, "DatasetVersion")) for d in self.used.get(i, [])]
            for i in ids
        ]

    def impact(self, node_id: str, scope: Scope, as_of: Any = None) -> list[ImpactItem] | None:
        if node_id != "dataset:p/web@v1":
            return None
        start = _node(node_id, "DatasetVersion")
        chat = _node("model:p/chat@1", "ModelVersion", status="approved")
        api = _node("deployment:p/api", "Deployment", status="active")
        to_chat = GraphPath((start, chat), (EdgeView(chat.id, start.id, "USED"),))
        to_api = GraphPath(
            (start, chat, api), (*to_chat.edges, EdgeView(api.id, chat.id, "SERVES"))
        )
        return [ImpactItem(chat, to_chat), ImpactItem(api, to_api)]


def test_a_row_per_metric_sorted_by_name_or_one_without_a_metric() -> None:
    e = _evaluation("evaluation:1", "2026-01-02T00:00:00Z", {"f1": 0.5, "acc": 0.7}, passed=True)
    rows = results_of(e, ["dataset:p/eval@v1"])
    assert [(r["metric"], r["value"]) for r in rows] == [("acc", 0.7), ("f1", 0.5)]
    assert rows[0] == {
        "evaluation": "evaluation:1",
        "suite": "s",
        "suite_version": None,
        "datasets": ["dataset:p/eval@v1"],
        "metric": "acc",
        "value": 0.7,
        "passed": True,
        "evaluated_at": "2026-01-02T00:00:00Z",
    }
    bare = results_of(_evaluation("evaluation:2", "2026-01-03T00:00:00Z", None, passed=False), [])
    assert [(r["metric"], r["value"], r["passed"]) for r in bare] == [(None, None, False)]


def test_results_per_version_oldest_first_in_two_reads() -> None:
    late = _evaluation("evaluation:b", "2026-01-05T00:00:00Z", {"acc": 0.6})
    early = _evaluation("evaluation:a", "2026-01-01T00:00:00Z", {"acc": 0.5})
    reader = _Reader(
        {"model:p/m@1": [late, early], "model:p/m@2": []},
        {"evaluation:a": ["dataset:p/eval@v2", "dataset:p/eval@v1"], "evaluation:b": []},
    )
    found = evaluation_results(reader, ["model:p/m@1", "model:p/m@2"], Scope.everything())  # type: ignore[arg-type]
    assert [[(r["evaluation"], r["datasets"]) for r in rows] for rows in found] == [
        [("evaluation:a", ["dataset:p/eval@v1", "dataset:p/eval@v2"]), ("evaluation:b", [])],
        [],
    ]
    assert reader.asked == [
        ("EVALUATED", Direction.DOWNSTREAM, ["model:p/m@1", "model:p/m@2"]),
        ("USED", Direction.UPSTREAM, ["evaluation:a", "evaluation:b"]),
    ]
    assert evaluation_results(reader, [], Scope.everything()) == []  # type: ignore[arg-type]


def test_the_answer_and_its_text() -> None:
    reader = _Reader(
        {"model:p/chat@1": [_evaluation("evaluation:1", "2026-01-02T00:00:00Z", {"acc": 0.61})]},
        {"evaluation:1": ["dataset:p/eval@v1"]},
    )
    answer = impact_answer(reader, "dataset:p/web@v1", Scope.everything())  # type: ignore[arg-type]
    assert answer is not None
    chat, api = answer["items"]
    assert chat["path"] == ["dataset:p/web@v1", "model:p/chat@1"]
    assert [r["value"] for r in chat["evaluations"]] == [0.61]
    assert api["evaluations"] == [] and api["edges"][-1] == {
        "from": "deployment:p/api",
        "to": "model:p/chat@1",
        "type": "SERVES",
    }
    assert render_impact(answer).splitlines() == [
        "downstream of dataset:p/web@v1: 2 live",
        "ModelVersion model:p/chat@1 (approved)",
        "  via dataset:p/web@v1 -> model:p/chat@1",
        "  evaluations:",
        "    s on dataset:p/eval@v1: acc = 0.61 (2026-01-02T00:00:00Z)",
        "Deployment deployment:p/api (active)",
        "  via dataset:p/web@v1 -> model:p/chat@1 -> deployment:p/api",
    ]
    assert impact_answer(reader, "dataset:p/none@v1", Scope.everything()) is None  # type: ignore[arg-type]
    assert render_impact({"id": "x", "items": []}) == "nothing live downstream of x"
