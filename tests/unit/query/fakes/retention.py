"""`RetentionReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from typing import Any

from fakes.stored import StoredGraph, StoredNode, live, visible
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.model import Scope
from provgraph.query.read.retention_reads import (
    ARTEFACT_LABELS,
    ARTEFACT_LINKS,
    EVALUATED_WITH,
    RETIRED_AT,
    RUN_LINKS,
    Artefact,
    RunLinks,
    artefact,
    run_links,
)
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import DELETED_AT, FIRST_SEEN_AT, PROJECT

_USES = {r.value for r in (Rel.DERIVED_FROM, Rel.EXPORTED_FROM, *RUN_LINKS, Rel.SERVES)}


class FakeRetentionReads:
    """A project's artefacts and runs, a page at a time by id, as
    `retention_reads.ARTEFACTS` and `RUNS` read them (tests/contracts/retention_reads.py
    holds both to the same answers). Every call is kept in `calls` as (method, first)."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.calls: list[tuple[str, int]] = []

    def artefacts(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[Artefact]:
        self.calls.append(("artefacts", first))
        page = self._page(self.graph.nodes(*ARTEFACT_LABELS), project, scope, after, first)
        return [artefact(self._artefact(n, project, scope)) for n in page]

    def runs(
        self, project: str, scope: Scope, *, after: str = "", first: int = 1000
    ) -> list[RunLinks]:
        self.calls.append(("runs", first))
        page = self._page(self.graph.nodes(Label.RUN), project, scope, after, first)
        return [run_links({**r, "upstream": self._links(r.id, RUN_LINKS, scope)}) for r in page]

    @staticmethod
    def _page(nodes: Any, project: str, scope: Scope, after: str, first: int) -> list[StoredNode]:
        found = [n for n in nodes if n.get(PROJECT) == project and n.id > after
                 and visible(n, scope)]  # fmt: skip
        return sorted(found, key=lambda n: n.id)[:first]

    def _links(self, src: str, rels: tuple[Rel, ...], scope: Scope) -> list[list[str]]:
        wanted = {r.value for r in rels}
        out = set()
        for s, rel, dst in self.graph.links():
            target = self.graph.node(dst)
            if s == src and rel in wanted and target is not None and visible(target, scope):
                out.add((rel, dst))
        return [list(link) for link in sorted(out)]

    def _evaluated_with(self, node_id: str, scope: Scope) -> list[list[str]]:
        evaluations = self.graph.sources(node_id, Rel.EVALUATED, Label.EVALUATION)
        found = {dst for e in evaluations if visible(e, scope)
                 for _, dst in self._links(e.id, (Rel.USED,), scope)}  # fmt: skip
        return [[EVALUATED_WITH, dst] for dst in sorted(found)]

    def _artefact(self, node: StoredNode, project: str, scope: Scope) -> dict[str, Any]:
        served = [d.id for d in self.graph.sources(node.id, Rel.SERVES, Label.DEPLOYMENT)
                  if d.get("status") == "active" and live(d) and visible(d, scope)]  # fmt: skip
        return {
            **{k: node.get(k) for k in ("id", "name", "version", "step", "size_bytes", "status")},
            "kind": node.label.value,
            "retired_at": node.get(RETIRED_AT),
            "first_seen_at": node.get(FIRST_SEEN_AT),
            "deleted_at": node.get(DELETED_AT),
            "deleted_reason": node.get("deleted_reason"),
            "upstream": self._links(node.id, ARTEFACT_LINKS, scope)
            + self._evaluated_with(node.id, scope),
            "served_by": sorted(set(served)),
            "used_from": self._used_from(node.id, project, scope),
        }

    def _used_from(self, node_id: str, project: str, scope: Scope) -> list[str | None]:
        found: set[str | None] = set()
        for src, rel, dst in self.graph.links():
            other = self.graph.node(src)
            if dst != node_id or rel not in _USES or other is None:
                continue
            if other.get(PROJECT) == project or not live(other):
                continue
            if other.label is Label.DEPLOYMENT and other.get("status") != "active":
                continue
            found.add(other.get(PROJECT) if visible(other, scope) else None)
        return sorted(found, key=lambda p: (p is None, p or ""))
