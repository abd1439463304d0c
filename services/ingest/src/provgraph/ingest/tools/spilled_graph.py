"""The log's fold for `verify` at any size: the in-memory graph, with its applied events and
metric series kept on disk.

A fold of the whole log must keep what later events read (owners, discipline facts, the
nodes and relationships that resolution and the screens look at) but not the records of
applied events nor the points of metric series, which no rule reads and which are most of a
large log: `SpilledGraph` writes those to files, one per part of the canonical form
(`canonical.part_of`), as they come, and reads back only the parts a sink asks for. Its
memory grows with the graph's entities and the count of applied event ids, not with the
events' records nor the metric points.
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

from provgraph.ingest.ports import PartitionOffset
from provgraph.ingest.projection import EventMutations, event_props
from provgraph.ingest.projection.canonical import PARTS, Sink, event_key, part_of
from provgraph.ingest.projection.merge import apply_series
from provgraph.ingest.projection.mutations import EventRecord, SeriesUpsert
from provgraph.ingest.tools.memory_graph import MemoryGraph, emit_event
from provgraph.schemas.graph import METRIC_SERIES_LABEL
from provgraph.schemas.storage import PROJECT

T = TypeVar("T")

SPILL_BUFFER = 20_000
"""Items held in memory across all parts before they are written out."""

# An applied event as spilled: its project, id, node properties and the nodes it touched.
SpilledEvent = tuple[str, str, dict[str, Any], tuple[str, ...]]


class PartFiles(Generic[T]):
    """Items appended to one file per part, at most `buffer` of them held at a time."""

    def __init__(self, folder: Path, name: str, buffer: int = SPILL_BUFFER) -> None:
        self.folder, self.name, self.buffer = folder, name, buffer
        self.pending: dict[int, list[T]] = defaultdict(list)
        self.held = 0

    def add(self, part: int, item: T) -> None:
        """Append `item` to `part` (written out once `buffer` items are held)."""
        self.pending[part].append(item)
        self.held += 1
        if self.held >= self.buffer:
            self.flush()

    def flush(self) -> None:
        """Write every held item to its part's file."""
        for part, items in self.pending.items():
            with self._path(part).open("ab") as file:
                pickle.dump(items, file, protocol=pickle.HIGHEST_PROTOCOL)
        self.pending.clear()
        self.held = 0

    def read(self, part: int) -> Iterator[T]:
        """Every item of `part`, in the order added."""
        self.flush()
        path = self._path(part)
        if not path.exists():
            return
        with path.open("rb") as file:
            while True:
                try:
                    chunk: list[T] = pickle.load(file)
                except EOFError:
                    return
                yield from chunk

    def _path(self, part: int) -> Path:
        return self.folder / f"{self.name}-{part:03d}.pickle"


class SpilledGraph(MemoryGraph):
    """`MemoryGraph` with applied events and metric series on disk (in a new folder inside
    `folder`, default the system's temporary folder, removed on `close`). Hands the same
    graph to a sink; for `verify`, which only applies and emits (its `events` and `series`
    stay empty, and it is no batch writer)."""

    def __init__(self, folder: str | Path | None = None, buffer: int = SPILL_BUFFER) -> None:
        super().__init__()
        if folder is not None:
            Path(folder).mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix="provgraph-verify-", dir=folder))
        self.applied_ids: set[str] = set()
        self.spilled_events: PartFiles[SpilledEvent] = PartFiles(self.folder, "events", buffer)
        self.spilled_series: PartFiles[SeriesUpsert] = PartFiles(self.folder, "series", buffer)

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        """Not a writer: it keeps no payload hashes, so it could not refuse a copy of an
        applied event with another payload as the writers do. Fold with `apply`."""
        raise TypeError("SpilledGraph is verify's fold: apply events one by one, not batches")

    def applied(self, event_id: str) -> bool:
        """True when an event with this id was applied."""
        return event_id in self.applied_ids

    def _keep_event(self, record: EventRecord) -> None:
        self.applied_ids.add(record.event_id)
        item = (record.project, record.event_id, event_props(record), tuple(record.touched))
        self.spilled_events.add(part_of(event_key(record.event_id)), item)

    def _keep_series(self, m: SeriesUpsert) -> None:
        self.spilled_series.add(part_of(m.id), m)

    def _emit_series(self, sink: Sink, project: str | None) -> None:
        for part in _wanted(sink):
            series: dict[str, dict[str, Any]] = {}
            for m in self.spilled_series.read(part):
                apply_series(series.setdefault(m.id, {}), m)
            for key, props in series.items():
                if project in (None, props[PROJECT]):
                    sink.add_node(key, [METRIC_SERIES_LABEL], props)

    def _emit_events(self, sink: Sink, project: str | None) -> None:
        for part in _wanted(sink):
            for owner, event_id, props, touched in self.spilled_events.read(part):
                if project in (None, owner):
                    emit_event(sink, event_id, props, touched)

    def close(self) -> None:
        """Remove the spilled files."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> SpilledGraph:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _wanted(sink: Sink) -> Collection[int]:
    return sorted(sink.parts) if sink.parts is not None else range(PARTS)
