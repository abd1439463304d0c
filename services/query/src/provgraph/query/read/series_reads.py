"""The read of runs' logged metric series: the `SeriesReads` port, and `SeriesReader`, its
adapter over Neo4j with its Cypher (many runs in one round trip).

`run.metrics.logged` events are folded into one node per run and metric name holding a bounded
downsample of the series (`provgraph.schemas.storage.series_bucket`); every point logged stays
in the event log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import METRIC_SERIES_LABEL, Label
from provgraph.schemas.storage import INTERNAL_PREFIX, SERIES_NAME, SERIES_RUN, series_points

# For each readable run of $ids, its downsampled metric series (those named in $names, or all),
# each as its stored properties without their version stamps. A series is found by its run's
# id (an index), never by a traversal: it is no node of the lineage graph.
RUN_METRIC_SERIES = f"""
UNWIND $ids AS id
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: id}})
WHERE {visible("r")}
RETURN id, COLLECT {{
    MATCH (s:{METRIC_SERIES_LABEL} {{{SERIES_RUN}: id}})
    WHERE $names IS NULL OR s.{SERIES_NAME} IN $names
    RETURN [k IN keys(s) WHERE NOT k STARTS WITH '{INTERNAL_PREFIX}' | [k, s[k]]] AS props
}} AS series
"""


@dataclass(frozen=True)
class MetricSeriesView:
    """One metric of a run: its stored points (step, value), by step."""

    name: str
    points: tuple[tuple[int, float], ...]


class SeriesReads(Protocol):
    """What `Run.metricSeries` reads, in the caller's `Scope` (a run of an unreadable project
    is a missing one)."""

    def series(
        self,
        ids: Sequence[str],
        scope: Scope,
        *,
        names: Sequence[str] | None = None,
        as_of: str | None = None,
    ) -> list[list[MetricSeriesView]]:
        """For each run of `ids`, in the order asked, its metric series by name (those in
        `names`, or all); empty when the run is absent, unreadable, first seen after `as_of`
        or logged none."""


class SeriesReader:
    """`SeriesReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def series(
        self,
        ids: Sequence[str],
        scope: Scope,
        *,
        names: Sequence[str] | None = None,
        as_of: str | None = None,
    ) -> list[list[MetricSeriesView]]:
        """For each run of `ids`, in the order asked, its metric series by name."""
        params = {
            **scope_params(scope, as_of),
            "ids": list(ids),
            "names": list(names) if names is not None else None,
        }
        found = {
            str(r["id"]): series_views(dict(pairs) for pairs in r["series"])
            for r in self._session.run(RUN_METRIC_SERIES, params)
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
