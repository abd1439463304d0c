"""`nodes` and `search` with a run's metric condition (`final:val/loss<1.5`).

The read model filters what its Cypher can (`NodeWhere`: project, experiment, status, first
seen, a parameter, a dataset version used). A metric is checked here, on the runs it returns,
as `lessons` checks it (`MetricCondition`): final metrics are stored as JSON text, which Cypher
does not parse. A page of `nodes` reads on, page after page of the read model, until it holds
`first` runs that meet the condition and knows whether another follows, or until it has read
`scan` runs: then it may hold fewer, and its cursor continues after the last run read, so no
run is skipped or repeated. `search` checks the condition on the first matches by id (at most
the read model's page size).
"""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.convert import encode_cursor
from provgraph.query.read.model import NodeView, NodeWhere, Page, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.query.recipes.lessons import MetricCondition, uses_version
from provgraph.schemas.graph import Label


def _cursor(node: NodeView) -> str:
    return encode_cursor(node.first_seen_at or "", node.id)


class Listing:
    """`nodes` and `search` over a `ReadModel`; with a metric, at most `scan` runs read for
    one page of `nodes`, `chunk` a read."""

    def __init__(self, reader: ReadModel, scan: int, chunk: int) -> None:
        self._reader = reader
        self._scan = scan
        self._chunk = chunk

    def nodes(
        self,
        type: str,
        scope: Scope,
        where: NodeWhere,
        *,
        metric: str | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> Page:
        """A page of `type` nodes passing `where` and, for runs, `metric`."""
        uses_version(where.uses)
        if metric is None:
            return self._reader.list_nodes(type, scope, where, first=first, after=after)
        condition = MetricCondition.parse(metric)
        if type != Label.RUN:
            raise InvalidArgumentError(
                f"metric: a metric condition keeps runs; the type asked for is {type}",
                argument="metric",
            )
        kept: list[NodeView] = []
        read, cursor = 0, after
        while True:
            page = self._reader.list_nodes(
                type, scope, where, first=min(self._chunk, self._scan - read), after=cursor
            )
            for node in page.items:
                read += 1
                if not condition.holds(node.props):
                    continue
                if len(kept) == first:  # one more meets it: the page is full and has a next
                    return Page(items=tuple(kept), next_cursor=_cursor(kept[-1]))
                kept.append(node)
            cursor = page.next_cursor
            if cursor is None:
                return Page(items=tuple(kept), next_cursor=None)
            if read >= self._scan:
                return Page(items=tuple(kept), next_cursor=_cursor(page.items[-1]))

    def search(
        self,
        text: str,
        scope: Scope,
        *,
        types: Sequence[str] = (),
        where: NodeWhere,
        metric: str | None = None,
        first: int = 50,
    ) -> list[NodeView]:
        """Nodes whose name or id holds `text`, passing `where` and, for runs, `metric`."""
        uses_version(where.uses)
        if metric is None:
            return self._reader.search(text, scope, types=types, where=where, first=first)
        condition = MetricCondition.parse(metric)
        if types and Label.RUN not in types:
            raise InvalidArgumentError(
                f"metric: a metric condition keeps runs; the types asked for are "
                f"{', '.join(types)}",
                argument="metric",
            )
        found = self._reader.search(text, scope, types=[Label.RUN], where=where, first=self._chunk)
        return [n for n in found if condition.holds(n.props)][:first]
