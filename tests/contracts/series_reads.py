"""The SeriesReads contract: one graph, one set of expected answers, every adapter held to them.

`SeriesReadsContract` runs against the in-memory `FakeSeriesReads`
(tests/unit/query/test_series_reads_contract_fake.py) and `SeriesReader` over the real Neo4j
(tests/integration/query/test_series_reads_contract_neo4j.py). Both load `SeriesGraph`, the
events of two projects folded by the projector's writers, so the series are stored as the
writer stores them: downsampled into buckets, beside each run.

Expected points are computed from the points logged, by the contract's bucket rule
(`storage.series_bucket`: a bucket keeps the point at its highest step, a re-logged step the
later event's value); nothing is written out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from support.contract_graphs_team import TwoProjects, instant, stored

from provgraph.query.read.model import Scope
from provgraph.query.read.series_reads import MetricSeriesView, SeriesReads
from provgraph.schemas.ids import experiment_id, model_version_id, run_id
from provgraph.schemas.storage import series_bucket

WHO = ("user:ann", "user:ann")
BETWEEN = stored(instant("2026-03-03T00:00"))  # after every run of a but `late`
LONG = 300  # steps 0..299 of `train/loss`: kept as one point per bucket, far fewer
Points = list[tuple[int, float]]


@dataclass
class SeriesGraph(TwoProjects):
    """Project a: run r1 with three metrics (one long, one re-logged), r2 with none, `gone`
    (deleted after logging), `late` (first seen after BETWEEN), `ghost` (only mentioned).
    Project b: run `spy` with a metric."""

    def __post_init__(self) -> None:
        self.logged: dict[tuple[str, str], Points] = {}  # (run id, metric): points, log order
        a, b = self.a, self.b
        for key, day in (("r1", "01T09:00"), ("r2", "01T09:30"), ("gone", "01T10:00")):
            self.start(a, key, f"2026-03-{day}")
        long = [(step, 10.0 - step / 100) for step in range(LONG)]
        self.log_metric(a, "r1", "2026-03-01T10:00", "train/loss", long)
        self.log_metric(a, "r1", "2026-03-01T10:30", "val/loss", [(200, 2.0), (0, 9.0), (100, 3.0)])
        # A later event re-logs step 299 (its value wins) and 298, in the same bucket (the
        # higher step stays).
        self.log_metric(a, "r1", "2026-03-01T11:00", "train/loss", [(299, 0.5), (298, 0.4)])
        self.log_metric(a, "r1", "2026-03-04T09:00", "acc", [(5, 0.9), (7, 0.95)])
        self.log_metric(a, "gone", "2026-03-01T10:10", "loss", [(1, 4.0)])
        self.log.add(a, WHO, instant("2026-03-02T09:00"), "entity.deleted",
                     entity=self.id("gone"), reason="cleanup")  # fmt: skip
        self.start(a, "late", "2026-03-05T09:00")
        self.log_metric(a, "late", "2026-03-05T10:00", "loss", [(1, 1.0)])
        self.log.add(a, WHO, instant("2026-03-01T12:00"), "model.version.registered",
                     name="m", version="1", produced_by_run=self.id("ghost"))  # fmt: skip
        self.start(b, "spy", "2026-03-01T09:00")
        self.log_metric(b, "spy", "2026-03-01T10:00", "loss", [(3, 0.3)])

    def id(self, key: str, project: str | None = None) -> str:
        """The id of run `key` of `project` (a by default; `spy` is b's)."""
        owner = project or (self.b if key == "spy" else self.a)
        return run_id(f"{owner}-{key}")

    def start(self, project: str, key: str, when: str) -> None:
        self.log.add(project, WHO, instant(when), "run.started", run_id=f"{project}-{key}",
                     experiment=experiment_id(project, "e"))  # fmt: skip

    def log_metric(self, project: str, key: str, when: str, name: str, points: Points) -> None:
        """`project` logs `points` of `name` on its run `key`."""
        self.log.add(project, WHO, instant(when), "run.metrics.logged", run_id=f"{project}-{key}",
                     points=[{"name": name, "step": s, "value": v} for s, v in points])  # fmt: skip
        self.logged.setdefault((self.id(key, project), name), []).extend(points)

    def views(self, key: str, *names: str) -> list[MetricSeriesView]:
        """The series of run `key` (those `names`, or all), as stored: by name, by step."""
        run = self.id(key)
        logged = sorted(n for r, n in self.logged if r == run and (not names or n in names))
        return [MetricSeriesView(name, tuple(kept(self.logged[run, name]))) for name in logged]


def kept(points: Points) -> Points:
    """The points a series keeps of `points` (in log order): per bucket, the highest step,
    a step logged again taking the later value; by step."""
    buckets: dict[int, tuple[int, float]] = {}
    for step, value in points:
        bucket = series_bucket(step)
        if bucket not in buckets or step >= buckets[bucket][0]:
            buckets[bucket] = (step, value)
    return sorted(buckets.values())


class SeriesReadsContract:
    """What every SeriesReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> SeriesGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: SeriesGraph) -> SeriesReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_each_run_in_the_order_asked_its_series_by_name_and_step(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        only_a, _ = graph.scopes()
        r1 = graph.views("r1")
        assert [v.name for v in r1] == sorted(["train/loss", "val/loss", "acc"])
        ids = [graph.id("r2"), graph.id("r1"), graph.id("r1")]
        assert reads.series(ids, only_a) == [[], r1, r1]
        assert reads.series([], only_a) == []

    def test_a_long_series_is_kept_downsampled_the_later_value_winning(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        only_a, _ = graph.scopes()
        [[train]] = reads.series([graph.id("r1")], only_a, names=["train/loss"])
        assert train == graph.views("r1", "train/loss")[0]
        steps = [step for step, _ in train.points]
        assert len(steps) == len({series_bucket(s) for s in range(LONG)}) < LONG
        assert steps == sorted(steps) and steps[:20] == list(range(20))  # dense at first
        assert train.points[-1] == (LONG - 1, 0.5)  # re-logged later; 298 lost to 299

    def test_runs_of_unreadable_projects_are_answered_as_missing(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        only_a, both = graph.scopes()
        spy, r1 = graph.id("spy"), graph.id("r1")
        assert reads.series([spy, r1], only_a) == [[], graph.views("r1")]
        assert reads.series([spy], both) == [[MetricSeriesView("loss", ((3, 0.3),))]]
        assert reads.series([r1], Scope(frozenset())) == [[]]

    def test_missing_ids_mentioned_runs_and_other_kinds_answer_nothing(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        _, both = graph.scopes()
        others = [
            "run:nowhere",
            graph.id("ghost"),  # a placeholder: mentioned, never started
            experiment_id(graph.a, "e"),
            model_version_id(graph.a, "m", "1"),
            graph.id("r2"),  # started, logged nothing
        ]
        assert reads.series(others, both) == [[] for _ in others]

    def test_names_pick_the_series_answered(self, reads: SeriesReads, graph: SeriesGraph) -> None:
        only_a, _ = graph.scopes()
        r1 = [graph.id("r1")]
        assert reads.series(r1, only_a, names=["val/loss", "nope"]) == [
            graph.views("r1", "val/loss")
        ]
        assert reads.series(r1, only_a, names=["val/loss", "acc"]) == [
            graph.views("r1", "acc", "val/loss")
        ]
        assert reads.series(r1, only_a, names=[]) == [[]]

    def test_as_of_hides_runs_first_seen_later_and_cuts_no_series(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        only_a, _ = graph.scopes()
        ids: Sequence[str] = [graph.id("late"), graph.id("r1")]
        assert reads.series(ids, only_a) == [graph.views("late"), graph.views("r1")]
        # The downsample keeps no times: `acc` was logged after the cut and is still answered.
        assert reads.series(ids, only_a, as_of=BETWEEN) == [[], graph.views("r1")]
        r1_seen = stored(instant("2026-03-01T09:00"))  # the cut is inclusive
        assert reads.series(ids, only_a, as_of=r1_seen) == [[], graph.views("r1")]
        assert reads.series(ids, only_a, as_of=stored(instant("2026-02-28T00:00"))) == [[], []]

    def test_a_deleted_run_still_answers_its_series(
        self, reads: SeriesReads, graph: SeriesGraph
    ) -> None:
        only_a, _ = graph.scopes()
        assert reads.series([graph.id("gone")], only_a) == [graph.views("gone")]
