"""The `ScaleUpReads` contract: a run and the pilot it scales up, every adapter held to the same
answers: `ScaleUpReadsContract` runs against `FakeScaleUpReads`
(tests/unit/query/test_scale_up_reads_contract_fake.py) and `ScaleUpReader` over the real Neo4j
(tests/integration/query/test_scale_up_reads_contract_neo4j.py), each over `scale_up_graph`.
A pilot that was never started (a placeholder), was deleted or is not readable is named but not
read; a run missing, deleted or unreadable is none."""

from __future__ import annotations

from typing import Any

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.model import Scope
from provgraph.query.read.scale_up_reads import ScaleUpPair, ScaleUpReads
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import encode_json

_PILOT = {"num_nodes": 1, "devices_per_node": 8}
_BIG = {"num_nodes": 8, "devices_per_node": 8}


def scale_up_graph(a: str, b: str) -> KeyedGraph:
    """Project a: pilot `p` (experiment `x`, input `web`) and its scale-up `s`; `lone` names no
    pilot; `early` names a pilot never started (`ghost`, a placeholder); `orphaned` a deleted
    one (`dropped`); `cross` names b's run `bp`; `gone` is a deleted scale-up of `p`."""
    g = KeyedGraph(a, b)
    g.add("x", Label.EXPERIMENT, "experiment:{a}/scale")
    g.add("web", Label.DATASET_VERSION, "dataset:{a}/web@v1")
    for key, res in (("p", _PILOT), ("s", _BIG), ("lone", None), ("early", _BIG)):
        props: dict[str, Any] = {"name": key, "status": "completed", "started_at": at(1)}
        if res is not None:
            props["resources_json"] = encode_json(res)
        g.add(key, Label.RUN, f"run:{{a}}-{key}", **props)
    for key in ("ghost", "orphaned", "dropped", "cross", "gone"):
        g.add(key, Label.RUN, f"run:{{a}}-{key}")
    g.add("bp", Label.RUN, "run:{b}-bp", name="theirs")
    g.mark("ghost", placeholder=True)
    g.mark("dropped", deleted=at(5))
    g.mark("gone", deleted=at(6))
    for run in ("p", "s"):
        g.link(run, Rel.PART_OF, "x")
        g.link(run, Rel.USED, "web", role="train")
    for src, dst in (
        ("s", "p"),
        ("early", "ghost"),
        ("orphaned", "dropped"),
        ("cross", "bp"),
        ("gone", "p"),
    ):
        g.link(src, Rel.SCALED_FROM, dst)
    return g


def _ids(pair: ScaleUpPair | None) -> tuple[str, str | None, str | None] | None:
    if pair is None:
        return None
    pilot = None if pair.pilot is None else str(pair.pilot["run"]["id"])
    return str(pair.run["run"]["id"]), pair.pilot_id, pilot


class ScaleUpReadsContract:
    """What every `ScaleUpReads` adapter answers on `scale_up_graph`."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> ScaleUpReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_a_scale_up_and_its_pilot_each_with_its_upstream(
        self, reads: ScaleUpReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        pair = reads.scale_up_pair(graph.id("s"), only_a)
        assert _ids(pair) == (graph.id("s"), graph.id("p"), graph.id("p"))
        assert pair is not None and pair.pilot is not None
        assert pair.run["run"] == graph.props("s")
        assert pair.pilot["run"] == graph.props("p")
        for record in (pair.run, pair.pilot):
            assert record["experiment"] == graph.id("x")
            assert record["inputs"] == [{"role": "train", "id": graph.id("web"), "gates": None}]
            assert (record["bases"], record["resumes"]) == ([], [])

    def test_a_pilot_named_but_not_recorded_deleted_or_unreadable_is_not_read(
        self, reads: ScaleUpReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        for run, pilot in (("early", "ghost"), ("orphaned", "dropped"), ("cross", "bp")):
            assert _ids(reads.scale_up_pair(graph.id(run), only_a)) == (
                graph.id(run),
                graph.id(pilot),
                None,
            )
        assert _ids(reads.scale_up_pair(graph.id("cross"), both)) == (
            graph.id("cross"),
            graph.id("bp"),
            graph.id("bp"),
        )

    def test_a_run_without_a_pilot_and_runs_that_are_none(
        self, reads: ScaleUpReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        assert _ids(reads.scale_up_pair(graph.id("lone"), only_a)) == (graph.id("lone"), None, None)
        assert reads.scale_up_pair(graph.id("gone"), both) is None  # deleted
        assert reads.scale_up_pair("run:nowhere-1", both) is None
        assert reads.scale_up_pair(graph.id("s"), Scope(frozenset())) is None
        assert reads.scale_up_pair(graph.id("bp"), only_a) is None  # b's, unreadable
        assert reads.scale_up_pair(graph.id("x"), both) is None  # an experiment is no run
