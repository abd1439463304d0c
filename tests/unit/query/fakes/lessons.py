"""`LessonReads` in memory: the lessons index answered from nodes and edges as `LessonReader`'s
Cypher and Neo4j's full-text index answer it (tests/contracts/lesson_reads.py holds the two to
the same answers). A node matches when one of its indexed texts holds a word of the query, in
any case; its score is the number of the query's words it holds, so a node holding more of them
ranks higher, as it does in Lucene (the contract never compares the scores themselves)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from fake_reader import FakeReader
from support.contract_graphs_recipes import ViewGraph, stored

from provgraph.query.read.lesson_reads import LessonFilter, LessonHit
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas.graph import LESSON_FIELDS, Label, Rel

_WORD = re.compile(r"\w+")
_ESCAPED = re.compile(r"\\(.)")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


class FakeLessonReads:
    """The graph of `nodes` and `edges` (none by default: nothing matches). Every call is kept
    as (query, where, candidates, fetch, scope)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)
        self._reader = FakeReader(nodes, edges)
        self.asked: list[tuple[str, LessonFilter, int, int, Scope]] = []

    def lessons(
        self, query: str, where: LessonFilter, candidates: int, fetch: int, scope: Scope
    ) -> list[LessonHit]:
        self.asked.append((query, where, candidates, fetch, scope))
        wanted = _words(_ESCAPED.sub(r"\1", query))
        scored = []
        for node in self.graph.by_id.values():  # the index holds every project's nodes
            fields = LESSON_FIELDS.get(Label(node.type), ())
            texts = " ".join(str(stored(node).get(f) or "") for f in fields)
            score = len(wanted & _words(texts))
            if score:
                scored.append((score, node))
        scored.sort(key=lambda s: (-s[0], s[1].id))
        hits = [(s, n) for s, n in scored[:candidates] if self._passes(n, where, scope)]
        hits.sort(key=lambda h: (-h[0], h[1].id))
        return [self._hit(n, float(s), scope) for s, n in hits[:fetch]]

    def _passes(self, node: NodeView, where: LessonFilter, scope: Scope) -> bool:
        """What `LESSONS` keeps: `visible`, `live` and `passes` as `FakeReader` (the fake of
        `nodes` and `search`) applies them, and one of the labels asked for."""
        labelled = not where.labels or node.type in where.labels
        return labelled and self._reader.passes(node, where.where, scope)

    def _hit(self, node: NodeView, score: float, scope: Scope) -> LessonHit:
        experiments = self.graph.target_ids(node.id, Rel.PART_OF, scope, Label.EXPERIMENT)
        return LessonHit(node.type, stored(node), score, experiments[0] if experiments else None)
