"""`SeriesReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fakes.stored import StoredGraph, visible
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.model import Scope
from provgraph.query.read.series_reads import MetricSeriesView, series_views
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import SERIES_NAME, public


@dataclass(frozen=True)
class SeriesCall:
    """One call of `series`, as asked."""

    ids: tuple[str, ...]
    scope: Scope
    names: tuple[str, ...] | None
    as_of: str | None


class FakeSeriesReads:
    """A run's series nodes, found by the run's id, when the run is readable at `as_of` (as
    `series_reads.RUN_METRIC_SERIES` reads them; tests/contracts/series_reads.py holds both to
    the same answers). Every call is kept in `calls`."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.calls: list[SeriesCall] = []

    def series(
        self,
        ids: Sequence[str],
        scope: Scope,
        *,
        names: Sequence[str] | None = None,
        as_of: str | None = None,
    ) -> list[list[MetricSeriesView]]:
        wanted = tuple(names) if names is not None else None
        self.calls.append(SeriesCall(tuple(ids), scope, wanted, as_of))
        return [self._of(run_id, scope, wanted, as_of) for run_id in ids]

    def _of(
        self, run_id: str, scope: Scope, wanted: tuple[str, ...] | None, as_of: str | None
    ) -> list[MetricSeriesView]:
        run = self.graph.node(run_id, Label.RUN)
        if run is None or not visible(run, scope, as_of):
            return []
        stored = self.graph.series(run_id)
        return series_views(public(s) for s in stored if wanted is None or s[SERIES_NAME] in wanted)
