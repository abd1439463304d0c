"""The ProvReads contract: one graph, one set of expected answers, every adapter held to them.

`ProvReadsContract` runs against the in-memory `FakeProvReads`
(tests/unit/query/test_prov_reads_contract_fake.py) and `ProvReader` over the real Neo4j
(tests/integration/query/test_prov_reads_contract_neo4j.py). Both load the feedback contract's
graph (`contracts.feedback_reads.FeedbackGraph`): its events are sent by several actors, some
stamped with a principal by ingest, some written straight to the log, in two projects.
"""

from __future__ import annotations

import pytest

from contracts.feedback_reads import ANN, BOT, CANARY_EVENTS, CAROL, COLLECTOR, FeedbackGraph
from provgraph.ingest.projection import EventRecord
from provgraph.query.read.model import Scope
from provgraph.query.read.prov_reads import Acted, ProvReads
from provgraph.schemas import issued_name
from provgraph.schemas.ids import deployment_id, model_id

Expected = tuple[str, str | None, str]


def acted(*events: EventRecord) -> tuple[Expected, ...]:
    """Who sent `events`, once per (actor, principal as issued) with the earliest time, by
    actor then principal (none first): written from the log, not from an answer."""
    first: dict[tuple[str, str | None], str] = {}
    for e in events:
        key = (e.actor, issued_name(e.principal))
        first[key] = min(first.get(key, e.occurred_at), e.occurred_at)
    return tuple(sorted(((a, p, at) for (a, p), at in first.items()),
                        key=lambda x: (x[0], x[1] or "")))  # fmt: skip


def contract_graph(name: str) -> FeedbackGraph:
    """The contract graph, its two projects named after `name` (a test's unique name)."""
    return FeedbackGraph(f"{name[:56]}-a", f"{name[:56]}-b")


def answered(found: tuple[Acted, ...]) -> tuple[Expected, ...]:
    return tuple((a.actor, a.principal, a.first_at) for a in found)


class ProvReadsContract:
    """What every ProvReads adapter answers on the contract graph. Subclasses provide `graph`
    (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> FeedbackGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: FeedbackGraph) -> ProvReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_the_actors_of_the_events_about_each_node_in_the_order_asked(
        self, reads: ProvReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        ev = graph.events
        api = acted(ev["api"], ev["f1"], ev["f2"], ev["f3"])
        canary = acted(ev["canary"], *(ev[f"c{i}"] for i in range(1, CANARY_EVENTS + 1)))
        m1 = acted(ev["m1"])
        ids = [deployment_id(graph.a, "canary"), graph.version("1"), deployment_id(graph.a, "api")]
        found = reads.actors([*ids, graph.version("1")], only_a)
        assert [answered(f) for f in found] == [canary, m1, api, m1]
        # The bot's events (stamped) and the collector's (straight to the log) are two entries
        # of one actor; principals are named as their tokens were issued.
        assert [(a, p) for a, p, _ in api] == [COLLECTOR, BOT, ANN]
        assert reads.actors([], only_a) == []

    def test_a_node_no_event_is_about_has_no_actors(
        self, reads: ProvReads, graph: FeedbackGraph
    ) -> None:
        only_a, _ = graph.scopes()
        # The model is written by its versions' registrations: none of them is about it.
        assert reads.actors([model_id(graph.a, "m")], only_a) == [()]

    def test_nodes_of_unreadable_projects_and_missing_ids_have_none(
        self, reads: ProvReads, graph: FeedbackGraph
    ) -> None:
        only_a, both = graph.scopes()
        ev = graph.events
        spy = deployment_id(graph.b, "spy")
        theirs = acted(ev["spy"], ev["s1"], ev["s2"])
        assert [a for a, _, _ in theirs] == [ANN[0], CAROL[0]]
        assert [answered(f) for f in reads.actors([spy], both)] == [theirs]
        assert reads.actors([spy], only_a) == [()]
        assert reads.actors([graph.version("1"), spy], Scope(frozenset())) == [(), ()]
        missing = [deployment_id(graph.a, "nowhere"), "run:nothing-at-all"]
        assert reads.actors(missing, both) == [(), ()]
