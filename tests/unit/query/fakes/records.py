"""`RecordsReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Callable

from fakes.stored import StoredGraph, StoredNode, visible
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.model import Scope
from provgraph.query.read.records_reads import (
    APPROVED_AT,
    BULK_EVENTS,
    ENDED,
    KIND_LABELS,
    POLICY_SET_AT,
    REQUIRE_CONCLUSION,
    SOURCE_PREFIX,
    ProjectPolicy,
    RecordFacts,
    RecordsAsk,
    RecordsPage,
    page_of,
    project_policy,
    record_facts,
)
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.ids import project_id
from provgraph.schemas.records import REQUIRE_PASSED_GATES, REQUIRED_ELEMENTS, RecordKind
from provgraph.schemas.storage import FIRST_SEEN_AT, PLACEHOLDER, PROJECT, record_key

Condition = Callable[[StoredGraph, StoredNode], bool]


def _linked(rel: Rel, label: Label) -> Condition:
    return lambda g, n: any(s == n.id and r == rel.value and g.node(d, label) is not None
                            for s, r, d in g.links())  # fmt: skip


def _concluded(_: StoredGraph, n: StoredNode) -> bool:
    return bool(str(n.get("conclusion") or "").strip()) or n.get("status") not in ENDED


def _evaluated(g: StoredGraph, n: StoredNode) -> bool:
    approved = n.get(APPROVED_AT)
    return any(approved is None or e["evaluated_at"] < approved
               for e in g.sources(n.id, Rel.EVALUATED, Label.EVALUATION))  # fmt: skip


# `records_reads.ELEMENT_CONDITIONS`, element by element.
CONDITIONS: dict[RecordKind, dict[str, Condition]] = {
    RecordKind.RUN: {
        "experiment": _linked(Rel.PART_OF, Label.EXPERIMENT),
        "run_number": lambda _, n: n.get("run_number") is not None,
        "code": lambda _, n: n.get(record_key("code", "commit")) is not None,
        "inputs": _linked(Rel.USED, Label.DATASET_VERSION),
        "environment": _linked(Rel.RAN_IN, Label.ENVIRONMENT),
        "conclusion": _concluded,
    },
    RecordKind.DATASET_VERSION: {
        "source": lambda _, n: any(k.startswith(SOURCE_PREFIX) for k in n),
        "licence": lambda _, n: n.get(record_key("source", "licence")) is not None,
    },
    RecordKind.MODEL_VERSION: {"evaluation": _evaluated},
}


class FakeRecordsReads:
    """A project's policy and its records of one kind by id, a page at a time, matched as
    `records_reads.PROJECT_POLICY` and `records_page` match them
    (tests/contracts/records_reads.py holds both to the same answers). Every page asked is
    kept in `pages`."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.pages: list[RecordsAsk] = []

    def policy(self, project: str, scope: Scope) -> ProjectPolicy | None:
        node = self.graph.node(project_id(project), Label.PROJECT)
        if node is None or not visible(node, scope):
            return None
        return project_policy({
            "required": node.get(REQUIRED_ELEMENTS), "conclusion": node.get(REQUIRE_CONCLUSION),
            "gates": node.get(REQUIRE_PASSED_GATES), "set_at": node.get(POLICY_SET_AT),
        })  # fmt: skip

    def records(self, ask: RecordsAsk, scope: Scope) -> RecordsPage:
        self.pages.append(ask)
        found = sorted(
            (
                n
                for n in self.graph.nodes(KIND_LABELS[ask.kind])
                if n.get(PROJECT) == ask.project and visible(n, scope) and n.id > ask.after
                and (ask.since is None or n[FIRST_SEEN_AT] >= ask.since)
            ),
            key=lambda n: n.id,
        )  # fmt: skip
        facts = [self._facts(n, ask.kind, scope) for n in found[: ask.first + 1]]
        return page_of(facts, ask.first)

    def _facts(self, node: StoredNode, kind: RecordKind, scope: Scope) -> RecordFacts:
        events = [
            e
            for e in self.graph.touching(node.id)
            if scope.allows(e.project) and e.event_type not in BULK_EVENTS
        ]
        events.sort(key=lambda e: (e.subject != node.id, e.occurred_at, e.event_id))
        first = events[0] if events else None
        return record_facts({
            "id": node.id, "recorded_at": node[FIRST_SEEN_AT],
            "placeholder": bool(node.get(PLACEHOLDER, False)),
            "present": [e for e, holds in CONDITIONS[kind].items() if holds(self.graph, node)],
            "first": None if first is None else
            {"actor": first.actor, "principal": first.principal},
        })  # fmt: skip
