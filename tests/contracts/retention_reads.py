"""The RetentionReads contract: one graph, one set of expected answers, every adapter held to
them.

`RetentionReadsContract` runs against the in-memory `FakeRetentionReads`
(tests/unit/query/test_retention_reads_contract_fake.py) and `RetentionReader` over the real
Neo4j (tests/integration/query/test_retention_reads_contract_neo4j.py). Both load
`RetentionGraph`, the events of two projects folded by the projector's writers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from support.contract_graphs_team import TwoProjects, Who, instant, stored

from provgraph.query.read.model import Scope
from provgraph.query.read.retention_reads import Artefact, RetentionReads
from provgraph.schemas.ids import (
    checkpoint_id,
    dataset_version_id,
    deployment_id,
    model_version_id,
    run_id,
)

ANN: Who = ("user:ann", "user:ann")
CAROL: Who = ("user:carol", "user:carol")
EVALUATION = "5f0c2b1e-8a51-4f7e-9d0a-3c6f1e2d4b70"
SWEEP_CHECKPOINTS = 12  # several times the page the paging test asks for
RETIRED = "2025-06-01T00:00"
Summary = tuple[Any, ...]
"""(id, kind, size_bytes, status, retired_at, deleted, upstream, served_by, used_from)."""


def summary(a: Artefact) -> Summary:
    return (a.id, a.kind, a.size_bytes, a.status, a.retired_at, a.deleted_at is not None,
            a.upstream, a.served_by, a.used_from)  # fmt: skip


@dataclass
class RetentionGraph(TwoProjects):
    """Project a: dataset versions raw (1000 bytes), clean (500 bytes, derived from raw by run
    `prep`), nosize (no size, deleted) and bench (an evaluation of m@1 used it); run `train`
    used clean, saved checkpoints 100 and 200 and produced m@1 (exported from checkpoint 200,
    retired); deployment `api` serves m@1, `legacy` served it and is retired; run `ft`, still
    running, started from m@1 and resumed from checkpoint 100; run `sweep` saved
    SWEEP_CHECKPOINTS sizeless checkpoints.
    Project b: run `spy` used a's raw; deployment `mirror` serves a's m@1."""

    def __post_init__(self) -> None:
        a, b = self.a, self.b
        self.add(a, ANN, "01-01T00:00", "dataset.version.created", name="raw", version="v1",
                 storage_uri="s3://a/raw/", size_bytes=1000)  # fmt: skip
        self.start(a, "prep", "01-01T01:00")
        self.add(a, ANN, "01-01T02:00", "dataset.version.created", name="clean", version="v1",
                 storage_uri="s3://a/clean/", size_bytes=500, produced_by_run=self.run("prep"),
                 derived_from=[{"dataset_version": self.dv("raw"), "transform": "dd"}])  # fmt: skip
        self.add(a, ANN, "01-01T03:00", "dataset.version.created", name="nosize", version="v1",
                 storage_uri="s3://a/nosize/")  # fmt: skip
        self.add(a, ANN, "01-01T04:00", "entity.deleted", entity=self.dv("nosize"),
                 reason="a mistake")  # fmt: skip
        self.start(a, "train", "01-02T00:00", inputs=[{"dataset_version": self.dv("clean"),
                                                       "role": "train"}])  # fmt: skip
        for step, size in ((100, 10), (200, 20)):
            self.add(a, ANN, f"01-02T0{step // 100}:00", "checkpoint.saved", run_id=f"{a}-train",
                     step=step, uri=f"s3://a/ck/{step}", size_bytes=size)  # fmt: skip
        self.add(a, ANN, "01-03T00:00", "run.completed", run_id=f"{a}-train")
        self.add(a, ANN, "01-04T00:00", "model.version.registered", name="m", version="1",
                 produced_by_run=self.run("train"), checkpoint=self.ck("train", 200))  # fmt: skip
        self.add(a, ANN, "01-04T01:00", "dataset.version.created", name="bench", version="v1",
                 storage_uri="s3://a/bench/")  # fmt: skip
        self.add(a, ANN, "01-04T02:00", "model.version.evaluated", evaluation_id=EVALUATION,
                 model_version=self.mv(), suite="bench", dataset_versions=[self.dv("bench")],
                 passed=True)  # fmt: skip
        self.serve(a, "api", "01-05T00:00")
        self.serve(a, "legacy", "01-05T01:00")
        self.add(a, ANN, "02-01T00:00", "deployment.retired", name="legacy", reason="old")
        self.add(a, ANN, RETIRED[5:], "model.version.status.changed", model_version=self.mv(),
                 from_status="candidate", to_status="retired")  # fmt: skip
        self.start(a, "ft", "07-01T00:00", base_model=self.mv(),
                   resumed_from=self.ck("train", 100))  # fmt: skip
        self.start(a, "sweep", "08-01T00:00")
        for step in range(1, SWEEP_CHECKPOINTS + 1):
            self.add(a, ANN, f"08-02T{step:02d}:00", "checkpoint.saved", run_id=f"{a}-sweep",
                     step=step, uri=f"s3://a/sweep/{step}")  # fmt: skip
        self.start(b, "spy", "03-01T00:00", inputs=[{"dataset_version": self.dv("raw"),
                                                     "role": "eval"}])  # fmt: skip
        self.serve(b, "mirror", "03-01T01:00")

    def add(self, project: str, who: Who, when: str, kind: str, /, **payload: Any) -> None:
        self.log.add(project, who, instant(f"2025-{when}"), kind, **payload)

    def start(self, project: str, key: str, when: str, **payload: Any) -> None:
        who = ANN if project == self.a else CAROL
        self.add(project, who, when, "run.started", run_id=f"{project}-{key}", **payload)

    def serve(self, project: str, name: str, when: str) -> None:
        who = ANN if project == self.a else CAROL
        serves = [{"model_version": self.mv()}]
        self.add(project, who, when, "deployment.created", name=name, environment="prod",
                 endpoint=f"https://{name}.test", serves=serves)  # fmt: skip

    def dv(self, name: str) -> str:
        return dataset_version_id(self.a, name, "v1")

    def run(self, key: str, project: str | None = None) -> str:
        return run_id(f"{project or self.a}-{key}")

    def ck(self, key: str, step: int) -> str:
        return checkpoint_id(f"{self.a}-{key}", step)

    def mv(self) -> str:
        return model_version_id(self.a, "m", "1")

    def deployment(self, name: str, project: str | None = None) -> str:
        return deployment_id(project or self.a, name)

    def expected(self, both: bool) -> list[Summary]:
        """Every artefact of a, by id, as a reader in a's scope (or a's and b's) sees it."""
        b = self.b if both else None
        mine = [self.deployment("api")] + ([self.deployment("mirror", self.b)] if both else [])
        rows = [
            (self.dv("bench"), "DatasetVersion", None, None, None, False, (), (), ()),
            (self.dv("clean"), "DatasetVersion", 500, None, None, False,
             (("DERIVED_FROM", self.dv("raw")), ("GENERATED_BY", self.run("prep"))), (), ()),
            (self.dv("nosize"), "DatasetVersion", None, None, None, True, (), (), ()),
            (self.dv("raw"), "DatasetVersion", 1000, None, None, False, (), (), (b,)),
            (self.mv(), "ModelVersion", None, "retired", stored(instant(f"2025-{RETIRED[5:]}")),
             False, (("EVALUATED_WITH", self.dv("bench")),
                     ("EXPORTED_FROM", self.ck("train", 200)),
                     ("GENERATED_BY", self.run("train"))), tuple(sorted(mine)), (b,)),
            *[(self.ck("sweep", s), "Checkpoint", None, "available", None, False,
               (("GENERATED_BY", self.run("sweep")),), (), ())
              for s in range(1, SWEEP_CHECKPOINTS + 1)],
            *[(self.ck("train", s), "Checkpoint", s // 10, "available", None, False,
               (("GENERATED_BY", self.run("train")),), (), ()) for s in (100, 200)],
        ]  # fmt: skip
        return sorted(rows, key=lambda r: r[0])


class RetentionReadsContract:
    """What every RetentionReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> RetentionGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: RetentionGraph) -> RetentionReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_every_artefact_of_the_project_with_what_it_comes_from(
        self, reads: RetentionReads, graph: RetentionGraph
    ) -> None:
        only_a, both = graph.scopes()
        assert [summary(a) for a in reads.artefacts(graph.a, both)] == graph.expected(True)
        # b's nodes unreadable: what stands on a's nodes is there, whose it is is not said.
        assert [summary(a) for a in reads.artefacts(graph.a, only_a)] == graph.expected(False)

    def test_pages_in_id_order_add_up_to_the_whole(
        self, reads: RetentionReads, graph: RetentionGraph
    ) -> None:
        _, both = graph.scopes()
        pages, after = [], ""
        while True:
            page = reads.artefacts(graph.a, both, after=after, first=5)
            assert len(page) <= 5
            pages.append(page)
            if len(page) < 5:
                break
            after = page[-1].id
        every = [summary(a) for page in pages for a in page]
        assert every == graph.expected(True)
        assert len(pages) == len(every) // 5 + 1  # 19 artefacts: four pages, the last short

    def test_runs_with_what_they_used_started_and_resumed_from(
        self, reads: RetentionReads, graph: RetentionGraph
    ) -> None:
        _, both = graph.scopes()
        runs = {r.id: (r.status, r.upstream) for r in reads.runs(graph.a, both)}
        assert runs == {
            graph.run("ft"): ("running", (("RESUMED_FROM", graph.ck("train", 100)),
                                          ("STARTED_FROM", graph.mv()))),
            graph.run("prep"): ("running", ()),
            graph.run("sweep"): ("running", ()),
            graph.run("train"): ("completed", (("USED", graph.dv("clean")),)),
        }  # fmt: skip
        assert [r.id for r in reads.runs(graph.a, both, after=graph.run("prep"), first=1)] == [
            graph.run("sweep")
        ]

    def test_nothing_of_a_project_the_caller_may_not_read(
        self, reads: RetentionReads, graph: RetentionGraph
    ) -> None:
        only_a, both = graph.scopes()
        assert reads.artefacts(graph.b, only_a) == []
        assert reads.runs(graph.b, only_a) == []
        assert reads.artefacts(graph.a, Scope(frozenset())) == []
        assert [r.id for r in reads.runs(graph.b, both)] == [graph.run("spy", graph.b)]
        assert reads.artefacts(graph.b, both) == []  # b holds no artefact of its own

    def test_the_artefact_carries_what_the_advice_words_need(
        self, reads: RetentionReads, graph: RetentionGraph
    ) -> None:
        _, both = graph.scopes()
        found = {a.id: a for a in reads.artefacts(graph.a, both)}
        raw, gone, m1 = found[graph.dv("raw")], found[graph.dv("nosize")], found[graph.mv()]
        assert (raw.name, raw.version, raw.step) == ("raw", "v1", None)
        assert raw.first_seen_at == stored(instant("2025-01-01T00:00"))
        assert (gone.deleted_at is not None, gone.deleted_reason) == (True, "a mistake")
        assert (m1.name, m1.version) == ("m", "1")
        assert found[graph.ck("train", 200)].step == 200
