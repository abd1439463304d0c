"""Rendering a lineage as a terminal tree (pure)."""

from __future__ import annotations

from typing import Any

from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView
from provgraph.query.recipes.trace import describe, render_tree


def _node(node_id: str, type_: str, placeholder: bool = False, **props: Any) -> NodeView:
    return NodeView(node_id, type_, "p", None, None, None, placeholder, props)


MODEL = _node("model:p/chat@1", "ModelVersion", name="chat", version="1", status="approved")
RUN = _node("run:ft", "Run", name="sft", status="completed")
DATA = _node("dataset:p/d@v2", "DatasetVersion", name="d", version="v2")
RAW = _node("dataset:p/d@v1", "DatasetVersion", True, name="d", version="v1")
CKPT = _node("checkpoint:ft/300", "Checkpoint", step=300)

EDGES = (
    EdgeView(MODEL.id, RUN.id, "GENERATED_BY"),
    EdgeView(MODEL.id, CKPT.id, "EXPORTED_FROM"),
    EdgeView(CKPT.id, RUN.id, "GENERATED_BY"),
    EdgeView(RUN.id, DATA.id, "USED", {"role": "train"}),
    EdgeView(DATA.id, RAW.id, "DERIVED_FROM", {"transform": "dedup"}),
)


def _lineage(root: NodeView, depths: dict[str, int], truncated: bool = False) -> Lineage:
    return Lineage(root, (MODEL, RUN, DATA, RAW, CKPT), depths, EDGES, truncated)


UP = {MODEL.id: 0, RUN.id: 1, CKPT.id: 1, DATA.id: 2, RAW.id: 3}
DOWN = {RAW.id: 0, DATA.id: 1, RUN.id: 2, CKPT.id: 3, MODEL.id: 3}


def test_upstream_tree_expands_each_node_once_on_its_shortest_route() -> None:
    assert render_tree(_lineage(MODEL, UP), Direction.UPSTREAM).splitlines() == [
        "ModelVersion model:p/chat@1 (chat 1 approved)",
        "├── EXPORTED_FROM → Checkpoint checkpoint:ft/300 (step 300)",
        "│   └── GENERATED_BY → Run run:ft (sft completed) (repeated)",
        "└── GENERATED_BY → Run run:ft (sft completed)",
        "    └── USED[role=train] → DatasetVersion dataset:p/d@v2 (d v2)",
        "        └── DERIVED_FROM[transform=dedup] → DatasetVersion dataset:p/d@v1 (d v1)"
        " [placeholder]",
    ]


def test_downstream_tree_follows_incoming_edges_and_reports_truncation() -> None:
    tree = render_tree(_lineage(RAW, DOWN, truncated=True), Direction.DOWNSTREAM)
    assert tree.splitlines() == [
        "DatasetVersion dataset:p/d@v1 (d v1) [placeholder]",
        "└── ← DERIVED_FROM[transform=dedup] DatasetVersion dataset:p/d@v2 (d v2)",
        "    └── ← USED[role=train] Run run:ft (sft completed)",
        "        ├── ← GENERATED_BY Checkpoint checkpoint:ft/300 (step 300)",
        "        │   └── ← EXPORTED_FROM ModelVersion model:p/chat@1 (chat 1 approved) (repeated)",
        "        └── ← GENERATED_BY ModelVersion model:p/chat@1 (chat 1 approved)",
        "… truncated: a depth or node limit was reached",
    ]


def test_both_directions_print_two_sections_and_a_lone_root_prints_one_line() -> None:
    both = render_tree(_lineage(DATA, {}), Direction.BOTH).splitlines()
    assert both[0] == "upstream:" and "downstream:" in both
    alone = Lineage(RUN, (RUN,), {RUN.id: 0}, (), False)
    assert render_tree(alone) == "Run run:ft (sft completed)"


def test_describe_marks_deleted_nodes() -> None:
    gone = NodeView("run:x", "Run", "p", None, None, "2026-01-01T00:00:00.000000Z", False, {})
    assert describe(gone) == "Run run:x [deleted 2026-01-01T00:00:00.000000Z]"
