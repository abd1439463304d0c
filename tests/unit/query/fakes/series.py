"""`SeriesReads` in memory: the run nodes, and each run's series as views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fake_reader import seen_by

from provgraph.query.read.model import NodeView, Scope
from provgraph.query.read.series_reads import MetricSeriesView


@dataclass(frozen=True)
class SeriesCall:
    """One call of `series`, as asked."""

    ids: tuple[str, ...]
    scope: Scope
    names: tuple[str, ...] | None
    as_of: str | None


class FakeSeriesReads:
    """A run's series are answered when the run is readable at `as_of` (as the reader's
    `visible(r)`); every call is kept."""

    def __init__(
        self,
        runs: Sequence[NodeView] = (),
        series: Mapping[str, Sequence[MetricSeriesView]] | None = None,
    ) -> None:
        self.runs = {run.id: run for run in runs}
        self.stored = {k: sorted(v, key=lambda view: view.name) for k, v in (series or {}).items()}
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

        def of(run_id: str) -> list[MetricSeriesView]:
            run = self.runs.get(run_id)
            if run is None or not seen_by(run, scope, as_of):
                return []
            views = self.stored.get(run_id, [])
            return [v for v in views if wanted is None or v.name in wanted]

        return [of(run_id) for run_id in ids]
