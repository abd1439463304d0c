"""The read of runs' logged metric series over Neo4j: many runs in one round trip.

`run.metrics.logged` events are folded into one node per run and metric name holding a bounded
downsample of the series (`provgraph.schemas.storage.series_bucket`); every point logged stays
in the event log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import scope_params
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.storage import SERIES_NAME, series_points


@dataclass(frozen=True)
class MetricSeriesView:
    """One metric of a run: its stored points (step, value), by step."""

    name: str
    points: tuple[tuple[int, float], ...]


class SeriesReads:
    """The metric-series read of one request, bound to its scope."""

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope

    def series(
        self,
        ids: Sequence[str],
        *,
        names: Sequence[str] | None = None,
        as_of: str | None = None,
    ) -> list[list[MetricSeriesView]]:
        """For each run of `ids`, in the order asked, its metric series by name (those in
        `names`, or all); empty when the run is absent, unreadable or logged none."""
        params = {
            **scope_params(self._scope, as_of),
            "ids": list(ids),
            "names": list(names) if names is not None else None,
        }
        found = {
            str(r["id"]): series_views(dict(pairs) for pairs in r["series"])
            for r in self._session.run(cypher.RUN_METRIC_SERIES, params)
        }
        return [found.get(run, []) for run in ids]


def series_views(stored: Iterable[Mapping[str, Any]]) -> list[MetricSeriesView]:
    """Stored series nodes (their properties) as views, by name."""
    views = [
        MetricSeriesView(str(props[SERIES_NAME]), tuple(series_points(props)))
        for props in stored
        if isinstance(props.get(SERIES_NAME), str)
    ]
    return sorted(views, key=lambda view: view.name)
