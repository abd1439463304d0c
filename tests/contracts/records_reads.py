"""The RecordsReads contract: one graph, one set of expected answers, every adapter held to
them.

`RecordsReadsContract` runs against the in-memory `FakeRecordsReads`
(tests/unit/query/test_records_reads_contract_fake.py) and `RecordsReader` over the real Neo4j
(tests/integration/query/test_records_reads_contract_neo4j.py). Both load `RecordsGraph`, the
events of two projects folded by the projector's writers; project a's policy is set by a real
`project.policy.set` (v2) event, last in the log. Which elements each record holds and who
recorded it are written from the story below, never read back from an answer.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from support.contract_graphs_team import TwoProjects, Who, instant, stored

from provgraph.query.read.model import Scope
from provgraph.query.read.records_reads import (
    ProjectPolicy,
    RecordFacts,
    RecordsAsk,
    RecordsPage,
    RecordsReads,
)
from provgraph.schemas.ids import (
    dataset_version_id,
    environment_id,
    experiment_id,
    run_id,
)
from provgraph.schemas.records import RecordKind

ANN: Who = ("user:ann", "user:ann")
BOB: Who = ("bob", None)  # written straight to the log: his claim is all there is
CAROL: Who = ("user:carol", "user:carol")
SWEEP = 12  # sweep runs: with `full`, `bare` and `live`, several pages of the sizes asked
REQUIRED = {"run": ["code", "experiment", "inputs"], "dataset_version": ["licence", "source"]}
_RUN_ALL = frozenset({"experiment", "run_number", "code", "inputs", "environment", "conclusion"})
Expected = tuple[str, bool, frozenset[str], str | None, str | None]
"""(id, placeholder, present elements, actor, principal) of a record."""


def facts(record: RecordFacts) -> Expected:
    return (record.id, record.placeholder, record.present, record.actor, record.principal)


@dataclass
class RecordsGraph(TwoProjects):
    """Project a:
    - dataset versions `web@v1` (ann: source with licence, gates passed), `forum@v1` (bob:
      source without licence), `raw@v1` (bob: no source), `ghost@v1` (a placeholder: only
      `full` names it);
    - runs `full` (ann: everything, completed with a conclusion), `bare` (bob: inputs alone,
      completed without conclusion), `live` (bob: experiment and number, still running, so
      no conclusion is due yet), `s01`..`s12` (ann: experiment, number and code, running);
    - model versions m@1 (ann: evaluated, then approved), m@2 (bob: approved, never
      evaluated), m@3 (bob: approved, evaluated only afterwards), m@4 (ann: evaluated, still
      a candidate);
    - the policy REQUIRED, set by ann after everything else.
    Project b (carol): run `spy` training on a's web@v1 (no code), dataset version leak@v1."""

    def __post_init__(self) -> None:
        self.expected: dict[RecordKind, dict[str, dict[str, Expected]]] = {
            k: {self.a: {}, self.b: {}} for k in RecordKind
        }
        self.first_seen: dict[str, str] = {}
        self.minute = 0
        a, b = self.a, self.b
        self.add(a, ANN, "experiment.created", key="exp", goal="lower loss")
        self.add(a, ANN, "environment.snapshot.recorded", key="img", python_version="3.11")
        licensed = {"uri": "s3://raw/web", "obtained_by": "crawl", "licence": "CC-BY-4.0"}
        passed = {"checks": [{"name": "dedup", "passed": True}]}
        self.version(a, ANN, "web", licensed, {"source", "licence"}, quality_gates=passed)
        unlicensed = {"uri": "https://forum.test", "obtained_by": "scrape"}
        self.version(a, BOB, "forum", unlicensed, {"source"})
        self.version(a, BOB, "raw", None, set())
        self.run(a, ANN, "full", _RUN_ALL, experiment=self.experiment(), run_number=1,
                 code=self.code(), environment=environment_id(a, "img"),
                 inputs=[self.used("web"), self.used("ghost", "validation")])  # fmt: skip
        self.end(a, ANN, "full", conclusion="lr 3e-4 is better")
        ghost = dataset_version_id(a, "ghost", "v1")
        self.expected[RecordKind.DATASET_VERSION][a][ghost] = (ghost, True, frozenset(), *ANN)
        self.first_seen[ghost] = self.first_seen[run_id(f"{a}-full")]
        self.since = self.now()
        self.run(a, BOB, "bare", {"inputs"}, inputs=[self.used("raw")])
        self.end(a, BOB, "bare")
        self.run(a, BOB, "live", {"experiment", "run_number", "conclusion"},
                 experiment=self.experiment(), run_number=2)  # fmt: skip
        for i in range(1, SWEEP + 1):
            self.run(a, ANN, f"s{i:02d}", {"experiment", "run_number", "code", "conclusion"},
                     experiment=self.experiment(), run_number=10 + i, code=self.code())  # fmt: skip
        self.models()
        self.run(b, CAROL, "spy", {"inputs", "conclusion"}, inputs=[self.used("web")])
        self.end(b, CAROL, "spy", conclusion="nothing learnt")
        self.version(b, CAROL, "leak", {"uri": "s3://leak", "obtained_by": "copy"}, {"source"})
        self.add(a, ANN, "project.policy.set", required=REQUIRED, reason="audit")

    # ---- the story ---------------------------------------------------------------------------

    def now(self) -> str:
        return stored(instant(f"2026-03-01T{self.minute // 60:02d}:{self.minute % 60:02d}"))

    def add(self, project: str, who: Who, kind: str, /, **payload: Any) -> str:
        self.minute += 1
        record = self.log.add(project, who, instant(self.now()[:16]), kind, **payload)
        self.first_seen.setdefault(record.subject, record.occurred_at)
        return record.subject

    def experiment(self) -> str:
        return experiment_id(self.a, "exp")

    def code(self) -> dict[str, Any]:
        return {"repo": "git@example.test:train.git", "commit": "4f2a9c1", "dirty": False}

    def used(self, name: str, role: str = "train") -> dict[str, str]:
        return {"dataset_version": dataset_version_id(self.a, name, "v1"), "role": role}

    def version(
        self,
        project: str,
        who: Who,
        name: str,
        source: dict[str, str] | None,
        present: set[str],
        **extra: Any,
    ) -> None:
        subject = self.add(project, who, "dataset.version.created", name=name, version="v1",
                           storage_uri=f"s3://data/{name}/v1/", source=source, **extra)  # fmt: skip
        self.expected[RecordKind.DATASET_VERSION][project][subject] = (
            subject, False, frozenset(present), *who)  # fmt: skip

    def run(self, project: str, who: Who, key: str, present: set[str], **payload: Any) -> None:
        subject = self.add(project, who, "run.started", run_id=f"{project}-{key}", name=key,
                           **payload)  # fmt: skip
        self.expected[RecordKind.RUN][project][subject] = (subject, False, frozenset(present),
                                                           *who)  # fmt: skip

    def end(self, project: str, who: Who, key: str, **payload: Any) -> None:
        self.add(project, who, "run.completed", run_id=f"{project}-{key}", **payload)

    def models(self) -> None:
        a, full = self.a, run_id(f"{self.a}-full")
        steps = {  # version: (who, evaluated before approval, approved, evaluated after it)
            "1": (ANN, True, True, False),
            "2": (BOB, False, True, False),
            "3": (BOB, False, True, True),
            "4": (ANN, True, False, False),
        }
        for version, (who, before, approved, after) in steps.items():
            subject = self.add(a, who, "model.version.registered", name="m", version=version,
                               produced_by_run=full)  # fmt: skip
            if before:
                self.evaluate(who, subject)
            if approved:
                self.add(a, who, "model.version.status.changed", model_version=subject,
                         from_status="candidate", to_status="approved")  # fmt: skip
            if after:
                self.evaluate(who, subject)
            present = {"evaluation"} if before else set()
            self.expected[RecordKind.MODEL_VERSION][a][subject] = (
                subject, False, frozenset(present), *who)  # fmt: skip

    def evaluate(self, who: Who, version: str) -> None:
        self.add(self.a, who, "model.version.evaluated", evaluation_id=str(uuid.uuid4()),
                 model_version=version, suite="evals", passed=True)  # fmt: skip

    # ---- expected answers --------------------------------------------------------------------

    def records(self, kind: RecordKind, project: str, since: str | None = None) -> list[Expected]:
        found = self.expected[kind][project]
        return [found[i] for i in sorted(found) if since is None or self.first_seen[i] >= since]


def _every(
    reads: RecordsReads,
    project: str,
    kind: RecordKind,
    scope: Scope,
    first: int,
    since: str | None = None,
) -> tuple[list[Expected], list[RecordsPage]]:
    """Every record read a page of `first` at a time, and the pages."""
    pages, after = [], ""
    while True:
        page = reads.records(RecordsAsk(project, kind, since, after, first), scope)
        pages.append(page)
        if page.after is None:
            break
        after = page.after
    return [facts(r) for p in pages for r in p.records], pages


class RecordsReadsContract:
    """What every RecordsReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> RecordsGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: RecordsGraph) -> RecordsReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_the_policy_set_by_the_event_and_none_where_none_was_set(
        self, reads: RecordsReads, graph: RecordsGraph
    ) -> None:
        only_a, both = graph.scopes()
        policy = reads.policy(graph.a, both)
        assert policy == ProjectPolicy(
            {RecordKind.RUN: ("code", "experiment", "inputs"),
             RecordKind.DATASET_VERSION: ("licence", "source")},
            False,
            graph.first_seen[f"project:{graph.a}"],
        )  # fmt: skip
        assert reads.policy(graph.b, both) is None
        assert reads.policy(graph.a, Scope(frozenset({graph.b}))) is None  # unreadable
        assert reads.policy(graph.a, only_a) == policy

    @pytest.mark.parametrize("kind", list(RecordKind))
    def test_each_record_with_what_it_holds_and_who_recorded_it(
        self, reads: RecordsReads, graph: RecordsGraph, kind: RecordKind
    ) -> None:
        only_a, both = graph.scopes()
        for project in (graph.a, graph.b):
            found = reads.records(RecordsAsk(project, kind, first=100), both)
            assert [facts(r) for r in found.records] == graph.records(kind, project)
            assert found.after is None
        page = reads.records(RecordsAsk(graph.a, kind, first=100), only_a).records
        assert [r.recorded_at for r in page] == [
            graph.first_seen[e[0]] for e in graph.records(kind, graph.a)
        ]

    @pytest.mark.parametrize("first", [1, 4, 5, SWEEP + 3, 100])
    def test_pages_by_id_cover_every_record_once(
        self, reads: RecordsReads, graph: RecordsGraph, first: int
    ) -> None:
        _, both = graph.scopes()
        every, pages = _every(reads, graph.a, RecordKind.RUN, both, first)
        expected = graph.records(RecordKind.RUN, graph.a)
        assert len(expected) == SWEEP + 3
        assert every == expected
        assert len(pages) == max(1, math.ceil(len(expected) / first))
        assert all(len(p.records) <= first for p in pages)

    def test_since_keeps_records_first_recorded_at_or_after_it(
        self, reads: RecordsReads, graph: RecordsGraph
    ) -> None:
        _, both = graph.scopes()
        runs, _ = _every(reads, graph.a, RecordKind.RUN, both, 4, since=graph.since)
        assert runs == graph.records(RecordKind.RUN, graph.a, graph.since)
        assert len(runs) == SWEEP + 2  # `full` is before it
        versions = reads.records(
            RecordsAsk(graph.a, RecordKind.DATASET_VERSION, since=graph.since), both
        )
        assert versions.records == []  # every one was first seen before `bare` started

    def test_another_project_s_records_are_left_out(
        self, reads: RecordsReads, graph: RecordsGraph
    ) -> None:
        only_a, _ = graph.scopes()
        for kind in RecordKind:
            assert reads.records(RecordsAsk(graph.b, kind), only_a).records == []
            assert reads.records(RecordsAsk(graph.a, kind), Scope(frozenset())).records == []
        spy = reads.records(
            RecordsAsk(graph.b, RecordKind.RUN), Scope(frozenset({graph.b}))
        ).records
        assert [facts(r) for r in spy] == graph.records(RecordKind.RUN, graph.b)
        # b's run trained on a's web@v1: a's record is still ann's, not carol's
        web = reads.records(RecordsAsk(graph.a, RecordKind.DATASET_VERSION), only_a).records
        assert {r.id: r.principal for r in web}[dataset_version_id(graph.a, "web", "v1")] == (
            "user:ann"
        )
