"""Verify: fold the whole log and compare it with Neo4j, part by part; the graph hash.

Both graphs are streamed into a `Summary` (a digest per part of the canonical form); only the
parts whose digests differ are then read in full on both sides and compared line by line, a
few parts at a time, until `limit` differences are found. The log's fold keeps its applied
events and metric series on disk (`SpilledGraph`), so a log of any length is verified in
memory that grows with the graph's entities, not with its events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from neo4j import Driver

from provgraph.ingest.graphread import Neo4jGraph
from provgraph.ingest.ports import GraphView
from provgraph.ingest.projection.canonical import PARTS, Summary, diff
from provgraph.ingest.screening import disciplined, owned
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.replay import fold_log
from provgraph.ingest.tools.spilled_graph import SpilledGraph

DIFF_LIMIT = 200
"""Differences listed at most (then a line saying there are more)."""

PARTS_AT_ONCE = 16
"""Differing parts read in full on both sides at a time."""


Progress = Callable[[int], None]
"""Told how many more log records were folded."""


def _quiet(_count: int) -> None:
    pass


def fold_log_into(
    graph: MemoryGraph, settings: IngestSettings, progress: Progress = _quiet
) -> None:
    """Fold the whole log into `graph` by the same pure projection, with the projector's
    screens event by event (ownership, then the records discipline)."""
    for change in fold_log(settings, progress):
        if owned(graph, [change]) and disciplined(graph, [change]):
            graph.apply(change)


@contextmanager
def folded_log(settings: IngestSettings, progress: Progress = _quiet) -> Iterator[SpilledGraph]:
    """The graph the log implies (its spilled files removed afterwards)."""
    with SpilledGraph(settings.verify_spill_dir) as graph:
        fold_log_into(graph, settings, progress)
        yield graph


def summary_of(view: GraphView, project: str | None = None) -> Summary:
    """The digests of `view`'s parts (or of `project`'s part of it), streamed."""
    summary = Summary()
    view.emit(summary, project)
    return summary


def compare(
    expected: GraphView, actual: GraphView, project: str | None = None, limit: int = DIFF_LIMIT
) -> list[str]:
    """Differences between two graphs (`expected` the log's fold); empty when they agree.
    At most `limit` are listed, the parts read in full only where the digests differ."""
    parts = summary_of(expected, project).differing(summary_of(actual, project))
    lines: list[str] = []
    for start in range(0, len(parts), PARTS_AT_ONCE):
        chunk = parts[start : start + PARTS_AT_ONCE]
        want, got = expected.canonical(project, chunk), actual.canonical(project, chunk)
        lines += diff(want, got, limit=None)
        if len(lines) > limit:
            return [*lines[:limit], _more(len(lines) - limit, parts[start + PARTS_AT_ONCE :])]
    return lines


def _more(count: int, unread: Sequence[int]) -> str:
    if not unread:
        return f"... and {count} more differences"
    return f"... and {count} more differences, and more in {len(unread)} of {PARTS} parts unread"


def verify(
    settings: IngestSettings,
    driver: Driver,
    project: str | None = None,
    limit: int = DIFF_LIMIT,
    progress: Progress = _quiet,
    folded: Callable[[], None] = lambda: None,
) -> list[str]:
    """Differences between the log's fold and Neo4j; empty when they agree. `progress` is
    told of the records folded, `folded` when the comparison starts."""
    with folded_log(settings, progress) as expected:
        folded()
        return compare(expected, Neo4jGraph(driver, settings.neo4j_database), project, limit)


def log_digest(settings: IngestSettings, project: str | None = None) -> str:
    """The graph hash of the log's fold (what `graph_hash` of a faithful graph prints)."""
    with folded_log(settings) as expected:
        return summary_of(expected, project).digest()


def graph_hash(driver: Driver, project: str | None = None, database: str = "neo4j") -> str:
    """A canonical sha256 of the Neo4j graph (nodes, relationships, properties), streamed."""
    return summary_of(Neo4jGraph(driver, database), project).digest()
