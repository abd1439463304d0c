"""`search` (lessons) on an in-memory graph: the query text, the filters' arguments, the metric
condition checked on the runs the index returned, the matching texts and the bounds. Expected
values are written from the nodes below, not computed by the code under test."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeLessonReads
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.lesson_reads import LessonHit
from provgraph.query.read.model import Scope
from provgraph.query.recipes.lessons import (
    MAX_TEXT,
    Lessons,
    MetricCondition,
    lucene_query,
    matches,
    render_lessons,
)
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import encode_json, param_key

EVERYTHING = Scope.everything()


def _graph() -> KeyedGraph:
    g = KeyedGraph("lm", "other")
    g.add("x", Label.EXPERIMENT, "experiment:{a}/sweep", goal="why does the loss diverge")
    g.add("web2", Label.DATASET_VERSION, "dataset:{a}/web@v2", change_note="dedup removed 4%")
    for n, (status, loss, lr, text) in enumerate(
        [
            ("failed", None, 2e-5, "diverged at step 900: loss spike"),
            ("completed", 1.4, 1e-5, "loss stable, lower lr helps"),
            ("completed", 1.7, 1e-5, "loss plateau"),
        ],
        1,
    ):
        props: dict[str, Any] = {"status": status, "conclusion": text, param_key("lr"): lr}
        if loss is not None:
            props["final_metrics_json"] = encode_json({"val": {"loss": loss}})
        g.add(f"r{n}", Label.RUN, f"run:{{a}}-{n}", at(n), **props)
        g.link(f"r{n}", Rel.PART_OF, "x")
    g.link("r2", Rel.USED, "web2", role="train")
    return g


def _lessons(graph: KeyedGraph, candidates: int = 1000, max_first: int = 500) -> Lessons:
    return Lessons(FakeLessonReads(list(graph.nodes.values()), graph.edges), candidates, max_first)


def _ids(answer: dict[str, Any]) -> list[str]:
    return [h["id"] for h in answer["hits"]]


def test_the_text_is_words_with_lucenes_syntax_escaped() -> None:
    assert lucene_query("out of memory") == "out of memory"
    assert lucene_query('lr=2e-5 C++ "nan" a:b (x) [y] ~z* q? a/b \\') == (
        'lr=2e\\-5 C\\+\\+ \\"nan\\" a\\:b \\(x\\) \\[y\\] \\~z\\* q\\? a\\/b \\\\'
    )
    with pytest.raises(InvalidArgumentError, match="give a word"):
        lucene_query("   ")


def test_metric_conditions() -> None:
    final = {"final_metrics_json": encode_json({"val": {"loss": 1.4}}), "metric.val/loss": 1.9}
    assert MetricCondition.parse("final:val/loss<1.5").holds(final)
    assert not MetricCondition.parse("last:val/loss<1.5").holds(final)  # the logged one: 1.9
    assert MetricCondition.parse("val/loss <= 1.4").holds(final)  # a name: the final value
    assert not MetricCondition.parse("val/loss>1.4").holds(final)
    assert MetricCondition.parse("metric.x=1").metric == "metric.x"
    assert not MetricCondition.parse("acc>0").holds(final)  # no such metric: never holds
    assert MetricCondition.parse("val/loss>=2e-1").text() == "val/loss>=0.2"
    for bad in ("val/loss", "val/loss<", "<1", "val/loss<one", "val/loss=<1"):
        with pytest.raises(InvalidArgumentError, match="not a condition"):
            MetricCondition.parse(bad)


def test_a_word_ranked_with_its_matching_text_and_filters() -> None:
    lessons = _lessons(_graph())
    answer = lessons.search("loss diverge", EVERYTHING)
    # x holds both words, each run one ("diverged" is another word): ties by id
    assert _ids(answer) == ["experiment:lm/sweep", "run:lm-1", "run:lm-2", "run:lm-3"]
    assert answer["hits"][0]["matches"] == [{"field": "goal", "text": "why does the loss diverge"}]
    run = answer["hits"][1]
    assert (run["type"], run["status"], run["experiment"]) == (
        "Run",
        "failed",
        "experiment:lm/sweep",
    )
    only = lessons.search("loss", EVERYTHING, kinds=["run"], status="completed")
    assert _ids(only) == ["run:lm-2", "run:lm-3"]
    assert _ids(lessons.search("loss", EVERYTHING, param="lr=2e-5")) == ["run:lm-1"]
    assert _ids(lessons.search("loss", EVERYTHING, uses="dataset:lm/web@v2")) == ["run:lm-2"]
    assert _ids(lessons.search("dedup", EVERYTHING, kinds=["dataset"])) == ["dataset:lm/web@v2"]


def test_the_metric_condition_is_checked_on_every_candidate() -> None:
    graph, reads_first = _graph(), 1
    lessons = _lessons(graph, candidates=1000, max_first=500)
    answer = lessons.search("loss", EVERYTHING, metric="final:val/loss<1.5", first=reads_first)
    assert _ids(answer) == ["run:lm-2"] and answer["truncated"] is False
    assert answer["filters"]["metric"] == "final:val/loss<1.5"
    fake = FakeLessonReads(list(graph.nodes.values()), graph.edges)
    Lessons(fake, 1000, 500).search("loss", EVERYTHING, metric="val/loss<2")
    assert [(a[2], a[3]) for a in fake.asked] == [(1000, 1000)]  # every candidate fetched
    Lessons(fake, 1000, 500).search("loss", EVERYTHING, first=3)
    assert (fake.asked[-1][2], fake.asked[-1][3]) == (1000, 4)  # one more than shown, to know


def test_at_most_first_hits_and_the_bounds() -> None:
    g = KeyedGraph("lm", "other")
    for n in range(12):  # several times `first`
        g.add(f"r{n}", Label.RUN, f"run:{{a}}-{n:02d}", conclusion="nan loss")
    lessons = _lessons(g, max_first=10)
    answer = lessons.search("nan", EVERYTHING, first=3)
    assert _ids(answer) == ["run:lm-00", "run:lm-01", "run:lm-02"] and answer["truncated"]
    assert len(_ids(lessons.search("nan", EVERYTHING, first=10))) == 10
    for first in (0, 11):
        with pytest.raises(InvalidArgumentError, match=r"first must be 1\.\.10"):
            lessons.search("nan", EVERYTHING, first=first)
    narrow = _lessons(g, candidates=2)  # the filters narrow only the best 2 matches
    assert len(_ids(narrow.search("nan", EVERYTHING))) == 2


def test_invalid_filters() -> None:
    lessons = _lessons(_graph())
    with pytest.raises(InvalidArgumentError, match="NAME=VALUE"):
        lessons.search("loss", EVERYTHING, param="lr")
    with pytest.raises(InvalidArgumentError, match="dataset version id"):
        lessons.search("loss", EVERYTHING, uses="dataset:lm/web")
    with pytest.raises(InvalidArgumentError, match="uses:"):
        lessons.search("loss", EVERYTHING, uses="web@v2")
    with pytest.raises(InvalidArgumentError, match="kind: job is not one of"):
        lessons.search("loss", EVERYTHING, kinds=["job"])


def test_matches_incidents_and_long_texts() -> None:
    incidents = [{"summary": "latency spike", "severity": "high"}, {"summary": "OOM on pod 3"}]
    dep = LessonHit("Deployment", {"id": "d", "feedback_incidents_json": encode_json(incidents)},
                    1.0, None)  # fmt: skip
    assert matches(dep, "spike") == [{"field": "incidents", "text": "latency spike; OOM on pod 3"}]
    long = "x " * 400 + "the divergence began " + "y " * 400
    run = LessonHit("Run", {"id": "r", "conclusion": long, "error_message": "boom"}, 1.0, None)
    (found,) = matches(run, "Divergence")
    assert found["field"] == "conclusion" and "the divergence began" in found["text"]
    assert found["text"].startswith("...") and found["text"].endswith("...")
    assert len(found["text"]) <= MAX_TEXT + 6
    # words alike as the index's stemming finds them; stop words never match
    assert [m["field"] for m in matches(run, "the diverged")] == ["conclusion"]
    # no text holds the word (the index's analyser matched more): all texts are shown
    assert [m["field"] for m in matches(run, "zzz")] == ["conclusion", "error_message"]


def test_the_text_rendering() -> None:
    answer = _lessons(_graph()).search("plateau", EVERYTHING, kinds=["run"])
    assert render_lessons(answer) == "\n".join(
        [
            "search 'plateau' (kinds run): 1 hit",
            "",
            "1. run:lm-3  Run  completed  experiment:lm/sweep",
            "   conclusion: loss plateau",
        ]
    )
    nothing = _lessons(_graph()).search("absent", EVERYTHING)
    assert render_lessons(nothing) == "search 'absent': no hit"
