"""The `LessonReads` contract: the read of `search` (the full-text index `lessons`, then the
caller's filters), every adapter held to the same answers.

`LessonReadsContract` runs against `FakeLessonReads` (tests/unit/query/test_lesson_reads_contract_
fake.py) and `LessonReader` over the real Neo4j and its Lucene index
(tests/integration/query/test_lesson_reads_contract_neo4j.py), each over `lesson_graph`. Every
text holds words made from the project's name (`tag`), so that nodes of other tests sharing the
database never match; scores are never compared, only which nodes match and, where one node
holds more of the query's words than the others, that it comes first.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.lesson_reads import LessonFilter, LessonReads
from provgraph.query.read.model import NodeWhere
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import encode_json, param_key

MANY = 1000
ANY = LessonFilter()


def tag(graph: KeyedGraph) -> str:
    """A word no other test's text holds: made from project a's name."""
    return "zq" + re.sub(r"[^a-z0-9]", "", graph.a.lower())


def lesson_graph(a: str, b: str) -> KeyedGraph:
    """Project a: an experiment, a failed and a completed run (each in the experiment, each
    with the dataset version it used), a deleted run, a model version made by the completed
    run, a deployment with an incident, a checkpoint (not indexed); project b: a run."""
    g = KeyedGraph(a, b)
    t = tag(g)
    incidents = [{"summary": f"{t}memory spike after the deploy", "severity": "high"}]
    g.add("x", Label.EXPERIMENT, "experiment:{a}/sweep", goal=f"find the {t}lr that fits")
    g.add("web1", Label.DATASET_VERSION, "dataset:{a}/web@v1", name="web")
    g.add("web2", Label.DATASET_VERSION, "dataset:{a}/web@v2", name="web",
          change_note=f"dropped the {t}memory hungry long shards")  # fmt: skip
    g.add("r1", Label.RUN, "run:{a}-1", at(1), name="bs-128", status="failed",
          error_message=f"CUDA out of {t}memory at {t}batch 128",
          conclusion=f"{t}batch 128 does not fit", **{param_key("batch_size"): 128})  # fmt: skip
    g.add("r2", Label.RUN, "run:{a}-2", at(2), name="lr", status="completed",
          conclusion=f"the lower {t}lr fixed it", **{param_key("lr"): 2e-05})  # fmt: skip
    g.add("gone", Label.RUN, "run:{a}-gone", at(3), status="failed",
          error_message=f"{t}memory again")  # fmt: skip
    g.mark("gone", deleted=at(4))
    g.add("m1", Label.MODEL_VERSION, "model:{a}/chat@1", name="chat",
          description=f"fits in {t}memory on one device")  # fmt: skip
    g.add("dep", Label.DEPLOYMENT, "deployment:{a}/chat-api", name="chat-api",
          feedback_incidents_json=encode_json(incidents))  # fmt: skip
    g.add("ck", Label.CHECKPOINT, "checkpoint:{a}-1/10", description=f"{t}memory")
    g.add("rb", Label.RUN, "run:{b}-1", at(5), status="failed", error_message=f"{t}memory")
    for run, version in (("r1", "web1"), ("r2", "web2")):
        g.link(run, Rel.PART_OF, "x")
        g.link(run, Rel.USED, version, role="train")
    g.link("m1", Rel.GENERATED_BY, "r2")
    return g


def _ids(hits: Any) -> list[str]:
    return [str(h.props["id"]) for h in hits]


class LessonReadsContract:
    """What every `LessonReads` adapter answers on `lesson_graph`. Subclasses provide `graph`
    (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> LessonReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_a_word_finds_every_kind_it_was_written_in_within_scope(
        self, reads: LessonReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        word = f"{tag(graph)}memory"
        mine = graph.ids("r1", "web2", "m1", "dep")  # not the deleted run, not the checkpoint
        assert sorted(_ids(reads.lessons(word, ANY, MANY, 50, only_a))) == mine
        everything = sorted(_ids(reads.lessons(word, ANY, MANY, 50, both)))
        assert everything == sorted([*mine, graph.id("rb")])
        assert reads.lessons(f"{tag(graph)}nothing", ANY, MANY, 50, both) == []

    def test_a_hit_holding_more_of_the_words_comes_first(
        self, reads: LessonReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        t = tag(graph)
        hits = reads.lessons(f"{t}memory {t}batch", ANY, MANY, 50, only_a)
        assert _ids(hits)[0] == graph.id("r1")
        assert sorted(_ids(hits)[1:]) == graph.ids("web2", "m1", "dep")
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_a_hit_with_its_properties_and_experiment(
        self, reads: LessonReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        t = tag(graph)
        (run,) = reads.lessons(f"{t}batch", ANY, MANY, 50, only_a)
        assert (run.type, run.props, run.experiment) == ("Run", graph.props("r1"), graph.id("x"))
        (dep,) = reads.lessons(f"{t}memory", LessonFilter(labels=("Deployment",)), MANY, 50, only_a)
        assert (dep.type, dep.props, dep.experiment) == ("Deployment", graph.props("dep"), None)

    def test_filters(self, reads: LessonReads, graph: KeyedGraph) -> None:
        only_a, both = graph.scopes()
        t = tag(graph)
        words = f"{t}memory {t}lr {t}batch"

        def found(filters: LessonFilter, scope: Any = only_a) -> list[str]:
            return sorted(_ids(reads.lessons(words, filters, MANY, 50, scope)))

        def where(**filters: Any) -> LessonFilter:
            return LessonFilter(NodeWhere(**filters))

        assert found(LessonFilter(labels=("Run",))) == graph.ids("r1", "r2")
        assert found(LessonFilter(labels=("Run",)), both) == graph.ids("r1", "r2", "rb")
        assert found(where(project=graph.b), both) == graph.ids("rb")
        assert found(where(project=graph.b)) == []
        assert found(where(status="failed"), both) == graph.ids("r1", "rb")
        assert found(where(param=("batch_size", "128"))) == graph.ids("r1")
        assert found(where(param=("lr", "2e-5"))) == graph.ids("r2")  # as a number: 2e-05
        assert found(where(uses=graph.id("web1"))) == graph.ids("r1")
        # the run used it, or the run that generated the hit did
        assert found(where(uses=graph.id("web2"))) == graph.ids("m1", "r2")
        assert found(where(experiment=graph.id("x"))) == graph.ids("r1", "r2")
        failed_runs = LessonFilter(NodeWhere(status="failed"), ("Run",))
        assert found(failed_runs, both) == graph.ids("r1", "rb")
        assert found(LessonFilter(labels=("Experiment", "DatasetVersion"))) == graph.ids(
            "web2", "x"
        )

    def test_the_filters_narrow_the_best_candidates_and_fetch_cuts(
        self, reads: LessonReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        t = tag(graph)
        words = f"{t}memory {t}batch"  # r1 holds both: the best candidate
        assert _ids(reads.lessons(words, ANY, 1, 50, only_a)) == [graph.id("r1")]
        deployments = LessonFilter(labels=("Deployment",))
        assert reads.lessons(words, deployments, 1, 50, only_a) == []
        assert _ids(reads.lessons(words, ANY, MANY, 2, only_a))[0] == graph.id("r1")
        assert len(reads.lessons(words, ANY, MANY, 2, only_a)) == 2
