"""The `ConventionReads` contract: a project's conventions, metric names, named records and
outputs, every adapter held to the same answers: `ConventionReadsContract` runs against
`FakeConventionReads` (tests/unit/query/test_convention_reads_contract_fake.py) and
`ConventionReader` over the real Neo4j
(tests/integration/query/test_convention_reads_contract_neo4j.py), each over
`convention_graph`."""

from __future__ import annotations

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.convention_reads import ConventionReads, Named, Output
from provgraph.query.read.model import Scope
from provgraph.schemas.conventions import NO_CONVENTIONS, Conventions, NamedKind
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.records import POLICY_RECORDS
from provgraph.schemas.storage import encode_json

OLD = f"{POLICY_RECORDS}2026-02-02T09:00:00.000000Z|0001"
NEW = f"{POLICY_RECORDS}2026-02-02T10:00:00.000000Z|0002"


def convention_graph(a: str, b: str) -> KeyedGraph:
    """Project a: two policies (the later declares conventions), runs of two experiments
    with metrics, an evaluation, a model version, a dataset version, an environment with an
    image and checkpoints, one URI written by runs of both experiments; a placeholder run and
    a deleted run; project b: no Project node (no policy, no grant), a run."""
    g = KeyedGraph(a, b)
    latest = {
        "required": {},
        "gates": False,
        "metric_aliases": {"validation/loss": "val/loss"},
        "names": {"run": "{experiment}-r{run_number}"},
        "storage_roots": ["s3://bucket/a"],
        "require_places": True,
    }
    old = encode_json({"required": {}, "gates": True})
    g.add("pa", Label.PROJECT, "project:{a}", **{OLD: old, NEW: encode_json(latest)})
    g.add("x1", Label.EXPERIMENT, "experiment:{a}/sft", key="sft")
    g.add("x2", Label.EXPERIMENT, "experiment:{a}/dpo", key="dpo")
    g.add(
        "r1",
        Label.RUN,
        "run:{a}-1",
        at(1),
        name="sft-r1",
        run_number=1,
        run_key=f"{a}-1",
        code_commit="0123456789abcdef",
        started_at=at(1),
        **{"metric.val/loss": 1.0, "final_metric.validation/loss": 0.9},
    )
    g.add(
        "r2",
        Label.RUN,
        "run:{a}-2",
        at(2),
        name="oops",
        run_number=2,
        run_key=f"{a}-2",
        started_at=at(2),
        **{"metric.val/loss": 1.1, "metric.lr": 0.1},
    )
    g.add("r3", Label.RUN, "run:{a}-3", at(3), run_key=f"{a}-3", started_at=at(3))
    g.add("ghost", Label.RUN, "run:{a}-ghost", at(4), **{"metric.ghost": 1.0})
    g.mark("ghost", placeholder=True)
    g.add("gone", Label.RUN, "run:{a}-gone", at(4), name="gone", **{"metric.gone": 1.0})
    g.mark("gone", deleted=at(5))
    g.add("theirs", Label.RUN, "run:{b}-t", at(1), name="t", **{"metric.theirs": 1.0})
    g.add("ev", Label.EVALUATION, "evaluation:{a}/e1", at(6), **{"metric.val_loss": 0.8})
    g.add(
        "mv",
        Label.MODEL_VERSION,
        "model:{a}/chat@v1",
        at(7),
        name="chat",
        version="v1",
        registered_at=at(7),
        uri="s3://bucket/a/models/chat/v1",
    )
    g.add(
        "dv",
        Label.DATASET_VERSION,
        "dataset:{a}/web@v2",
        at(0),
        name="web",
        version="v2",
        previous_version="v1",
        created_at=at(0),
        storage_uri="file:///home/ann/web",
    )
    g.add(
        "env",
        Label.ENVIRONMENT,
        "environment:{a}/train",
        at(0),
        key="train",
        image_name="registry/train",
        image_tag="1.0",
    )
    g.add("bare", Label.ENVIRONMENT, "environment:{a}/bare", at(0), key="bare")
    g.add("c1", Label.CHECKPOINT, "checkpoint:{a}-1/100", at(2), uri="s3://bucket/a/ckpt/100")
    g.add("c2", Label.CHECKPOINT, "checkpoint:{a}-2/100", at(3), uri="s3://bucket/a/ckpt/100")
    g.add("c3", Label.CHECKPOINT, "checkpoint:{a}-3/5", at(4))
    g.link("r1", Rel.PART_OF, "x1")
    g.link("r2", Rel.PART_OF, "x2")
    g.link("mv", Rel.GENERATED_BY, "r1")
    g.link("c1", Rel.GENERATED_BY, "r1")
    g.link("c2", Rel.GENERATED_BY, "r2")
    g.link("c3", Rel.GENERATED_BY, "r3")
    return g


class ConventionReadsContract:
    """What every `ConventionReads` adapter answers on `convention_graph`."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> ConventionReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_the_conventions_in_force(self, reads: ConventionReads, graph: KeyedGraph) -> None:
        only_a, both = graph.scopes()
        assert reads.conventions(graph.a, only_a) == Conventions(
            {"validation/loss": "val/loss"},
            {"run": "{experiment}-r{run_number}"},
            False,
            ("s3://bucket/a",),
            True,
        )
        assert reads.conventions(graph.b, both) == NO_CONVENTIONS  # known by its run
        assert reads.conventions(graph.b, only_a) is None
        assert reads.conventions("nowhere", both) is None

    def test_metric_names(self, reads: ConventionReads, graph: KeyedGraph) -> None:
        _, both = graph.scopes()
        expected = {"lr": 1, "val/loss": 2, "val_loss": 1, "validation/loss": 1}
        assert reads.metric_names(graph.a, both) == expected
        assert reads.metric_names(graph.a, Scope(frozenset({graph.b}))) == {}

    def test_named_runs(self, reads: ConventionReads, graph: KeyedGraph) -> None:
        only_a, _ = graph.scopes()
        runs = reads.named(graph.a, NamedKind.RUN, only_a, 10)
        day = at(1)[:10].replace("-", "")
        assert runs[0] == Named(
            graph.id("r1"),
            "sft-r1",
            at(1),
            {
                "experiment": "sft",
                "run_number": "1",
                "run_id": f"{graph.a}-1",
                "commit": "0123456",
                "project": graph.a,
                "date": day,
            },
        )
        assert [r.id for r in runs] == graph.ids("r1", "r2", "r3")  # by time: ids sort alike
        assert runs[2].name is None and runs[2].facts["experiment"] is None
        assert len(reads.named(graph.a, NamedKind.RUN, only_a, 2)) == 2

    def test_named_other_kinds(self, reads: ConventionReads, graph: KeyedGraph) -> None:
        only_a, _ = graph.scopes()
        (mv,) = reads.named(graph.a, NamedKind.MODEL_VERSION, only_a, 10)
        assert (mv.name, mv.facts["model"], mv.facts["run_id"]) == ("v1", "chat", f"{graph.a}-1")
        (dv,) = reads.named(graph.a, NamedKind.DATASET_VERSION, only_a, 10)
        assert (dv.name, dv.facts["dataset"], dv.facts["previous_version"]) == ("v2", "web", "v1")
        (image,) = reads.named(graph.a, NamedKind.IMAGE, only_a, 10)  # `bare` has no image
        assert (image.name, image.facts["environment"]) == ("registry/train:1.0", "train")

    def test_outputs(self, reads: ConventionReads, graph: KeyedGraph) -> None:
        only_a, _ = graph.scopes()
        found = reads.outputs(graph.a, only_a, 10)
        x1, x2 = graph.id("x1"), graph.id("x2")
        assert found == [
            Output(graph.id("dv"), "DatasetVersion", "file:///home/ann/web", None, None),
            Output(graph.id("c1"), "Checkpoint", "s3://bucket/a/ckpt/100", graph.id("r1"), x1),
            Output(graph.id("c2"), "Checkpoint", "s3://bucket/a/ckpt/100", graph.id("r2"), x2),
            Output(
                graph.id("mv"), "ModelVersion", "s3://bucket/a/models/chat/v1", graph.id("r1"), x1
            ),
        ]
        assert len(reads.outputs(graph.a, only_a, 2)) == 2
        assert reads.outputs(graph.b, only_a, 10) == []
