"""The `CheckpointReads` contract: a run's checkpoints with their evaluations, every adapter held
to the same answers: `CheckpointReadsContract` runs against `FakeCheckpointReads`
(tests/unit/query/test_checkpoint_reads_contract_fake.py) and `CheckpointReader` over the real
Neo4j (tests/integration/query/test_checkpoint_reads_contract_neo4j.py), each over
`checkpoint_graph`."""

from __future__ import annotations

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.checkpoint_reads import CheckpointEvaluation, CheckpointReads
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel


def checkpoint_graph(a: str, b: str) -> KeyedGraph:
    """Project a: run `r` saved checkpoints at steps 1000, 2000 and 3000 (and one at 2500 that
    was deleted); 1000 and 2000 evaluated on the set {d1, d2}, 2000 again later on {d3}, 3000 by
    an evaluation that was deleted; a run `idle` saved none; run `gone` was deleted. Project b:
    a checkpoint at 4000 of a's run, an evaluation of 3000 and a dataset version 1000's
    evaluation used too."""
    g = KeyedGraph(a, b)
    for key, template in (("r", "run:{a}-r"), ("idle", "run:{a}-idle"), ("gone", "run:{a}-gone")):
        g.add(key, Label.RUN, template)
    g.mark("gone", deleted=at(9))
    for key in ("d1", "d2", "d3"):
        g.add(key, Label.DATASET_VERSION, f"dataset:{{a}}/{key}@v1")
    g.add("db", Label.DATASET_VERSION, "dataset:{b}/db@v1")
    checkpoints = (("c1", 1000), ("c2", 2000), ("c3", 3000), ("cdel", 2500), ("cb", 4000))
    for key, step in checkpoints:
        loss = {"metric.loss": 3.0 - step / 1000} if key in ("c1", "c2") else {}
        g.add(
            key,
            Label.CHECKPOINT,
            f"checkpoint:{{a}}-r/{step}",
            at(step // 1000),
            step=step,
            saved_at=at(step // 1000),
            status="available",
            **loss,
        )
        g.link(key, Rel.GENERATED_BY, "r")
    g.mark("cdel", deleted=at(8))
    g.mark("cb", owner="b")
    evaluations = (
        ("e1", "c1", 10, {"metric.acc": 0.4}, False, ("d1", "d2", "db")),
        ("e2", "c2", 11, {"metric.acc": 0.5, "metric.f1": 0.3}, True, ("d2", "d1")),
        ("e2b", "c2", 12, {"metric.acc": 0.7}, True, ("d3",)),
        ("edel", "c3", 13, {"metric.acc": 0.9}, True, ("d1",)),
        ("eb", "c3", 14, {"metric.acc": 0.6}, True, ("d1", "d2")),
    )
    for key, checkpoint, minute, metrics, passed, data in evaluations:
        g.add(
            key,
            Label.EVALUATION,
            "evaluation:{uuid}",
            at(minute),
            suite="eval-suite",
            suite_version="1",
            passed=passed,
            evaluated_at=at(minute),
            **metrics,
        )
        g.link(key, Rel.EVALUATED, checkpoint)
        for d in data:
            g.link(key, Rel.USED, d, role="eval")
    g.mark("edel", deleted=at(20))
    g.mark("eb", owner="b")
    return g


def _evaluation(
    g: KeyedGraph, key: str, metrics: dict[str, float], *data: str
) -> CheckpointEvaluation:
    props = g.nodes[key].props
    return CheckpointEvaluation(
        g.id(key),
        "eval-suite",
        "1",
        tuple(g.ids(*data)),
        metrics,
        props["passed"],
        props["evaluated_at"],
    )


class CheckpointReadsContract:
    """What every `CheckpointReads` adapter answers on `checkpoint_graph`."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CheckpointReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_a_runs_checkpoints_in_step_order_with_their_evaluations(
        self, reads: CheckpointReads, graph: KeyedGraph
    ) -> None:
        only_a, _both = graph.scopes()
        found = reads.run_checkpoints(graph.id("r"), only_a, 10)
        assert found is not None
        assert (found.run, found.project, found.total) == (graph.id("r"), graph.a, 3)
        c1, c2, c3 = found.checkpoints
        assert [c.id for c in found.checkpoints] == [graph.id(k) for k in ("c1", "c2", "c3")]
        assert (c1.step, c1.saved_at, c1.status, c1.metrics) == (
            1000,
            at(1),
            "available",
            {"loss": 2.0},
        )
        assert c3.metrics == {}
        assert c1.evaluations == (_evaluation(graph, "e1", {"acc": 0.4}, "d1", "d2"),)
        assert c2.evaluations == (
            _evaluation(graph, "e2", {"acc": 0.5, "f1": 0.3}, "d1", "d2"),
            _evaluation(graph, "e2b", {"acc": 0.7}, "d3"),
        )
        assert c3.evaluations == ()  # its one evaluation of a was deleted

    def test_what_another_project_holds_is_read_only_by_its_readers(
        self, reads: CheckpointReads, graph: KeyedGraph
    ) -> None:
        _only_a, both = graph.scopes()
        found = reads.run_checkpoints(graph.id("r"), both, 10)
        assert found is not None and found.total == 4
        assert [c.step for c in found.checkpoints] == [1000, 2000, 3000, 4000]
        c1, _c2, c3, _cb = found.checkpoints
        assert c1.evaluations[0].datasets == tuple(graph.ids("d1", "d2", "db"))
        assert c3.evaluations == (_evaluation(graph, "eb", {"acc": 0.6}, "d1", "d2"),)

    def test_at_most_the_bound_the_latest_steps(
        self, reads: CheckpointReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        found = reads.run_checkpoints(graph.id("r"), only_a, 2)
        assert found is not None and found.total == 3
        assert [c.step for c in found.checkpoints] == [2000, 3000]
        found = reads.run_checkpoints(graph.id("r"), both, 1)
        assert found is not None and [c.step for c in found.checkpoints] == [4000]

    def test_a_run_without_checkpoints_and_missing_runs(
        self, reads: CheckpointReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        idle = reads.run_checkpoints(graph.id("idle"), only_a, 10)
        assert idle is not None and (idle.total, idle.checkpoints) == (0, ())
        assert reads.run_checkpoints(graph.id("gone"), both, 10) is None
        assert reads.run_checkpoints("run:nowhere", both, 10) is None
        assert reads.run_checkpoints(graph.id("r"), Scope(frozenset()), 10) is None
        assert reads.run_checkpoints(graph.id("c1"), both, 10) is None  # no run
