"""The FeedbackReads contract: one graph, one set of expected answers, every adapter held to
them.

`FeedbackReadsContract` runs against the in-memory `FakeFeedbackReads`
(tests/unit/query/test_feedback_reads_contract_fake.py) and `FeedbackReader` over the real
Neo4j (tests/integration/query/test_feedback_reads_contract_neo4j.py). Both load
`FeedbackGraph`, the events of two projects folded by the projector's writers: a deployment
keeps only the latest metrics and incidents its feedback recorded, each event is kept with
every node it touched.

Event ids are the events' own (random): orders are computed from the log, never written out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from support.contract_graphs_team import TwoProjects, Who, instant, stored

from provgraph.ingest.projection import EventRecord
from provgraph.query.read.feedback_reads import FeedbackReads, FeedbackRecord
from provgraph.query.read.model import Scope
from provgraph.schemas.ids import deployment_id, model_id, model_version_id, run_id

ANN: Who = ("user:ann", "user:ann")
BOT: Who = ("service:collector", "service:feedback-bot")  # ingest stamped the bot's token
COLLECTOR: Who = ("service:collector", None)  # written straight to the log
CAROL: Who = ("user:carol", "user:carol")
CANARY_EVENTS = 12  # several times the `first` the paging test asks for
TIMEOUTS = {"summary": "timeouts", "severity": "high"}
Summary = tuple[str, str, str | None, str | None, str | None, Any, Any]
"""(event id, at, actor, principal, deployment id, metrics, incidents) of a record."""


def summary(record: FeedbackRecord) -> Summary:
    deployment = record.deployment.id if record.deployment is not None else None
    incidents = list(record.incidents) if record.incidents is not None else None
    return (record.event_id, record.at, record.actor, record.principal, deployment,
            record.metrics, incidents)  # fmt: skip


@dataclass
class FeedbackGraph(TwoProjects):
    """Project a: model m (versions 1, 2, 3), deployment `api` serving m@1 with feedback f1
    (metrics and incidents), f2 (metrics) and f3 (metrics, naming no version: it replaces
    what api holds all the same), deployment `canary` serving m@2 with CANARY_EVENTS feedback.
    Project b: deployment `spy` serving a's m@1 with feedback s1 naming it, and b's own model
    version spy@1 with feedback s2."""

    def __post_init__(self) -> None:
        self.events: dict[str, EventRecord] = {}
        self.sent: dict[str, tuple[str, Who, Mapping[str, Any], Any]] = {}
        a, b = self.a, self.b
        for version, day in (("1", "02-01T09:00"), ("2", "03-01T09:00"), ("3", "02-01T10:00")):
            self.register(a, "m", version, day)
        self.deploy(a, "api", "02-02T09:00", self.version("1"))
        self.deploy(a, "canary", "03-01T10:00", self.version("2"))
        self.feedback("f1", a, BOT, "03-02T09:00", "api", "1", {"thumbs_up": 0.7}, [TIMEOUTS])
        self.feedback("f2", a, COLLECTOR, "03-03T09:00", "api", "1", {"thumbs_up": 0.8})
        self.feedback("f3", a, COLLECTOR, "03-04T09:00", "api", None, {"thumbs_up": 0.9})
        for i in range(1, CANARY_EVENTS + 1):
            when = f"03-05T{i:02d}:00"
            self.feedback(f"c{i}", a, BOT, when, "canary", "2", {"latency_ms": 100 + i})
        self.deploy(b, "spy", "03-01T09:00", self.version("1"))
        self.feedback("s1", b, CAROL, "03-03T12:00", "spy", self.version("1"), {"thumbs_up": 0.1})
        self.register(b, "spy", "1", "03-01T09:30")
        self.feedback("s2", b, CAROL, "03-02T12:00", "spy", self.version("1", b, "spy"), {})

    def version(self, version: str, project: str | None = None, model: str = "m") -> str:
        return model_version_id(project or self.a, model, version)

    def add(
        self, key: str, project: str, who: Who, when: str, kind: str, /, **payload: Any
    ) -> None:
        self.events[key] = self.log.add(project, who, instant(f"2026-{when}"), kind, **payload)

    def register(self, project: str, model: str, version: str, when: str) -> None:
        self.add(f"{model}{version}", project, ANN, when, "model.version.registered", name=model,
                 version=version, produced_by_run=run_id(f"{project}-train"))  # fmt: skip

    def deploy(self, project: str, name: str, when: str, serves: str) -> None:
        self.add(name, project, ANN, when, "deployment.created", name=name,
                 endpoint=f"https://{name}.test/m", environment="prod",
                 serves=[{"model_version": serves}])  # fmt: skip

    def feedback(
        self,
        name: str,
        project: str,
        who: Who,
        when: str,
        deployment: str,
        version: str | None,
        metrics: Mapping[str, Any],
        incidents: list[dict[str, Any]] | None = None,
    ) -> None:
        """Feedback `name` of `project`'s `deployment`, naming `version` (a's m@<version>
        when it is a bare number)."""
        named = self.version(version) if version is not None and version.isdigit() else version
        self.add(name, project, who, when, "deployment.feedback.recorded", name=deployment,
                 model_version=named, metrics=dict(metrics), incidents=incidents or [])  # fmt: skip
        self.sent[name] = (deployment_id(project, deployment), who, metrics, incidents)

    def record(self, name: str, *, metrics: bool = False, incidents: bool = False) -> Summary:
        """What feedback `name` is answered as: its metrics and incidents when the deployment
        still holds them (as the flags say)."""
        event, (deployment, who, sent_metrics, sent_incidents) = self.events[name], self.sent[name]
        return (event.event_id, event.occurred_at, who[0], who[1], deployment,
                dict(sent_metrics) if metrics else None,
                sent_incidents if incidents else None)  # fmt: skip

    def newest_first(self, *records: Summary) -> list[Summary]:
        return sorted(records, key=lambda r: (r[1], r[0]), reverse=True)


class FeedbackReadsContract:
    """What every FeedbackReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> FeedbackGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: FeedbackGraph) -> FeedbackReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    @staticmethod
    def answered(
        reads: FeedbackReads, ids: list[str], scope: Scope, **kw: Any
    ) -> list[list[Summary]]:
        return [[summary(r) for r in found] for found in reads.feedback(ids, scope, **kw)]

    def test_each_version_in_the_order_asked_newest_first(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        m1 = graph.newest_first(graph.record("f1", incidents=True), graph.record("f2"))
        m2 = graph.newest_first(*(graph.record(f"c{i}") for i in range(1, CANARY_EVENTS)))
        m2.insert(0, graph.record(f"c{CANARY_EVENTS}", metrics=True))
        ids = [graph.version("2"), graph.version("1"), graph.version("1")]
        assert self.answered(reads, ids, only_a) == [m2, m1, m1]
        assert reads.feedback([], only_a) == []

    def test_an_event_s_values_are_answered_while_its_deployment_holds_them(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        [[f2, f1]] = reads.feedback([graph.version("1")], only_a)
        # f3 named no version, yet it replaced api's metrics: neither f1's nor f2's are held.
        assert (f2.metrics, f2.incidents) == (None, None)
        assert (f1.metrics, f1.incidents) == (None, (TIMEOUTS,))  # nothing replaced these
        [latest, *older] = reads.feedback([graph.version("2")], only_a)[0]
        assert latest.metrics == {"latency_ms": 100 + CANARY_EVENTS}
        assert all(r.metrics is None and r.incidents is None for r in older)

    def test_feedback_of_unreadable_projects_is_left_out(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, both = graph.scopes()
        mine = [graph.record("f1", incidents=True), graph.record("f2")]
        theirs = graph.record("s1", metrics=True)  # b's deployment, naming a's version
        m1, spy1 = graph.version("1"), graph.version("1", graph.b, "spy")
        assert self.answered(reads, [m1, spy1], only_a) == [graph.newest_first(*mine), []]
        assert self.answered(reads, [m1, spy1], both) == [
            graph.newest_first(*mine, theirs),
            [graph.record("s2")],  # b's own version; it recorded no metrics
        ]
        assert self.answered(reads, [m1], Scope(frozenset())) == [[]]

    def test_first_bounds_the_newest_answered(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        m2 = [graph.version("2")]
        [every] = self.answered(reads, m2, only_a)
        assert len(every) == CANARY_EVENTS
        assert self.answered(reads, m2, only_a, first=3) == [every[:3]]
        assert self.answered(reads, m2, only_a, first=1) == [every[:1]]
        assert self.answered(reads, m2, only_a, first=CANARY_EVENTS) == [every]

    def test_as_of_leaves_out_later_events_and_versions_first_seen_later(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        ids = [graph.version("1"), graph.version("2")]
        f1 = graph.record("f1", incidents=True)  # what api holds now, not what it held then
        assert self.answered(reads, ids, only_a, as_of=f1[1]) == [[f1], []]
        assert self.answered(reads, ids, only_a, as_of=stored(instant("2026-03-02T12:00"))) == [
            [f1],
            [],
        ]
        before_m2 = stored(instant("2026-02-15T00:00"))
        assert self.answered(reads, ids, only_a, as_of=before_m2) == [[], []]

    def test_missing_ids_and_other_kinds_answer_nothing(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        _, both = graph.scopes()
        others = [
            "model:nowhere/m@1",
            deployment_id(graph.a, "api"),  # f1..f3 touched it: a deployment is no version
            model_id(graph.a, "m"),
            graph.version("3"),  # registered, no feedback
        ]
        assert reads.feedback(others, both) == [[] for _ in others]

    def test_the_deployment_is_answered_as_a_node_without_version_stamps(
        self, reads: FeedbackReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        [[f2, f1]] = reads.feedback([graph.version("1")], only_a)
        api = f1.deployment
        assert api is not None and f2.deployment == api
        assert (api.id, api.type, api.project, api.placeholder, api.deleted_at) == (
            deployment_id(graph.a, "api"),
            "Deployment",
            graph.a,
            False,
            None,
        )
        assert api.first_seen_at == graph.events["api"].occurred_at
        assert api.last_event_at == graph.events["f3"].occurred_at
        assert api.props["name"] == "api" and api.props["status"] == "active"
        assert not [key for key in api.props if key.startswith("_v")]
        assert (f1.principal, f2.principal) == ("service:feedback-bot", None)  # as issued
