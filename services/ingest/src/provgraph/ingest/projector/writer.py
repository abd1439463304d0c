"""The Neo4j writer: a whole batch of event mutations and its offsets in one transaction.

Mutations are grouped by kind (node label, relationship type and end labels) and combined
per key, then sent as one `UNWIND` per kind: nodes first, then relationships between bound
nodes and the runs' metric series, then the applied-event records, the inferred inputs the
batch asked to resolve (one read of their facts, the rule in Python, one write of the
difference) and the offsets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any

from neo4j import Driver, ManagedTransaction

from provgraph.ingest.graphread import (
    lookups_of,
    read_discipline_facts,
    read_numbers,
    read_output_writers,
    read_owners,
)
from provgraph.ingest.ports import BatchWriter, Ids, PartitionOffset
from provgraph.ingest.projection import event_props
from provgraph.ingest.projection.base import label_of
from provgraph.ingest.projection.discipline import RecordFacts
from provgraph.ingest.projection.merge import (
    combine_edges,
    combine_nodes,
    combine_series,
    combine_sets,
)
from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    EventMutations,
    Mutation,
    NodeUpsert,
    ResolveReads,
    SeriesUpsert,
)
from provgraph.ingest.projection.numbering import number, wanted
from provgraph.ingest.projection.ownership import Owner, claims
from provgraph.ingest.projection.resolution import (
    INFERRED_KEY,
    Facts,
    InferredUse,
    Read,
    Version,
    plan,
)
from provgraph.ingest.projector import cypher
from provgraph.ingest.projector.rejections import first_copies
from provgraph.schemas.graph import INFERRED, Label
from provgraph.schemas.storage import series_lists

CHUNK_ROWS = 2000
"""Rows per UNWIND statement: large enough to amortise round trips, small enough for memory."""


class _Batch:
    """A batch's mutations combined per key, ready to become UNWIND rows."""

    def __init__(self, changes: Iterable[EventMutations]) -> None:
        self.nodes: dict[str, NodeUpsert] = {}
        self.edges: dict[tuple[Any, ...], EdgeUpsert] = {}
        self.sets: dict[tuple[str, str], EdgeSetReplace] = {}
        self.series: dict[tuple[str, str], SeriesUpsert] = {}  # by (id, project)
        self.resolve: set[str] = set()  # `ResolveReads` subjects, applied after the rest
        self.events: list[EventMutations] = []
        for change in changes:
            self.events.append(change)
            for m in change.mutations:
                self._add(m)

    def _add(self, m: Mutation) -> None:
        if isinstance(m, NodeUpsert):
            old = self.nodes.get(m.id)
            self.nodes[m.id] = m if old is None else combine_nodes(old, m)
        elif isinstance(m, EdgeUpsert):
            edge = self.edges.get(m.identity)
            self.edges[m.identity] = m if edge is None else combine_edges(edge, m)
        elif isinstance(m, EdgeSetReplace):
            key = (m.src, m.rel.value)
            replaced = self.sets.get(key)
            self.sets[key] = m if replaced is None else combine_sets(replaced, m)
        elif isinstance(m, SeriesUpsert):
            series = self.series.get((m.id, m.project))
            self.series[(m.id, m.project)] = m if series is None else combine_series(series, m)
        elif isinstance(m, ResolveReads):
            self.resolve.add(m.subject)

    def statements(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """(query, rows) pairs in dependency order."""
        yield from _grouped(self.nodes.values(), lambda m: cypher.node_upsert(m.label), _node_row)
        yield from _grouped(self.edges.values(), _edge_query, _edge_row)
        yield from _grouped(self.sets.values(), _set_query, _set_row)
        yield from _grouped(self.series.values(), lambda _m: cypher.SERIES, _series_row)
        yield cypher.EVENTS, [_event_row(c) for c in self.events]


def _grouped(items: Iterable[Any], query: Any, row: Any) -> Iterator[tuple[str, list[Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        groups[query(item)].append(row(item))
    yield from groups.items()


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _node_row(m: NodeUpsert) -> dict[str, Any]:
    return {
        "id": m.id,
        "project": m.project,
        "defining": m.defining,
        "claims": claims(m),
        "first_seen": m.first_seen,
        "last_seen": m.last_seen,
        "lww": {k: {"v": i.version, "value": _plain(i.value)} for k, i in m.lww.items()},
        "mins": dict(m.mins),
        "maxs": dict(m.maxs),
    }


def _edge_query(m: EdgeUpsert) -> str:
    return cypher.edge_upsert(m.rel, m.src_label, m.dst_label, tuple(sorted(m.key)))


def _edge_row(m: EdgeUpsert) -> dict[str, Any]:
    return {
        "src": m.src,
        "dst": m.dst,
        "key": dict(m.key),
        "v": m.version,
        "props": dict(m.props),
        "first_seen": m.first_seen,
    }


def _set_query(m: EdgeSetReplace) -> str:
    return cypher.edge_set_replace(m.rel, m.src_label, m.dst_label)


def _set_row(m: EdgeSetReplace) -> dict[str, Any]:
    targets = [{"id": t.id, "props": dict(t.props)} for t in m.targets]
    return {"src": m.src, "v": m.version, "targets": targets}


def _series_row(m: SeriesUpsert) -> dict[str, Any]:
    points = {key: _plain(values) for key, values in series_lists(m.points).items()}
    return {"id": m.id, "run": m.run, "name": m.name, "project": m.project, "points": points}


def _event_row(change: EventMutations) -> dict[str, Any]:
    return {"props": event_props(change.record), "touched": sorted(change.record.touched)}


def resolve_reads(tx: ManagedTransaction, subjects: Collection[str]) -> None:
    """Make the inferred USED relationships around `subjects` (`ResolveReads`) what the rule
    of `projection.resolution` gives from the facts stored now: one read, one or two writes."""
    if not subjects:
        return
    runs = sorted(s for s in subjects if label_of(s) is Label.RUN)
    datasets = sorted(s for s in subjects if label_of(s) is Label.DATASET)
    result = tx.run(cypher.RESOLUTION_FACTS, runs=runs, datasets=datasets)
    plans = [plan(_facts(record)) for record in result]
    deletes = [{"run": r, "version": v} for p in plans for (r, v) in p.delete]
    writes = [_inferred_row(u) for p in plans for u in p.write]
    for query, rows in ((cypher.DELETE_INFERRED, deletes), (cypher.MERGE_INFERRED, writes)):
        for chunk in _chunks(rows):
            tx.run(query, rows=chunk).consume()


def _facts(record: Any) -> Facts:
    return Facts(
        dataset=str(record["dataset"]),
        versions=tuple(Version(v, at, tuple(sorted(by))) for v, at, by in record["versions"]),
        reads=tuple(Read(r, started, ended) for r, started, ended in record["reads"]),
        inferred=tuple(InferredUse(r, v, at) for r, v, at in record["inferred"]),
    )


def _inferred_row(use: InferredUse) -> dict[str, Any]:
    return {
        "run": use.run,
        "version": use.version,
        "role": INFERRED_KEY["role"],
        "inferred": INFERRED_KEY[INFERRED],
        "first_seen": use.first_seen,
    }


def _chunks(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), CHUNK_ROWS):
        yield rows[start : start + CHUNK_ROWS]


class GraphWriter(BatchWriter):
    """Applies batches of event mutations to Neo4j, exactly once per event_id."""

    def __init__(self, driver: Driver, database: str = "neo4j") -> None:
        self.driver = driver
        self.database = database

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        """Apply `changes` and store `offsets` in one transaction; return events applied."""
        with self.driver.session(database=self.database) as session:
            applied: int = session.execute_write(self._write_tx, list(changes), list(offsets))
        return applied

    @staticmethod
    def _write_tx(
        tx: ManagedTransaction, changes: list[EventMutations], offsets: list[PartitionOffset]
    ) -> int:
        fresh = _numbered(tx, _fresh(tx, changes))
        batch = _Batch(fresh)
        for query, rows in batch.statements():
            for chunk in _chunks(rows):
                tx.run(query, rows=chunk).consume()
        resolve_reads(tx, batch.resolve)
        if offsets:
            rows = [
                {"topic": o.topic, "partition": o.partition, "offset": o.offset} for o in offsets
            ]
            tx.run(cypher.OFFSETS, rows=rows).consume()
        return len(fresh)

    def read_offsets(self, topic: str) -> dict[int, int]:
        """The last applied offset per partition of `topic`."""
        records, _, _ = self.driver.execute_query(
            cypher.READ_OFFSETS, topic=topic, database_=self.database
        )
        return {int(r["partition"]): int(r["offset"]) for r in records}

    def owners(self, ids: Collection[str]) -> dict[str, Owner]:
        """The stored owner of each of `ids` in the graph."""
        return read_owners(self.driver, ids, self.database)

    def discipline_facts(
        self, environments: Ids, projects: Ids, dataset_versions: Ids = (), model_versions: Ids = ()
    ) -> RecordFacts:
        """The stored facts the discipline rules read of these ids (read from the leader: the
        projector must see its own last batch)."""
        wanted = lookups_of(environments, projects, dataset_versions, model_versions)
        return read_discipline_facts(self.driver, wanted, self.database)

    def output_writers(
        self, uris: Ids, runs: Ids
    ) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str | None]]:
        """The stored outputs at `uris` and the experiments of `runs` (from the leader)."""
        return read_output_writers(self.driver, uris, runs, self.database)


def _numbered(tx: ManagedTransaction, changes: list[EventMutations]) -> list[EventMutations]:
    """`changes` with each experiment and run given its number (`projection.numbering`), in
    their order (the log's), from the numbers read in the transaction that writes them."""
    projects, experiments = wanted(changes)
    if not projects and not experiments:
        return changes
    return number(changes, read_numbers(tx.run, projects, experiments))


def _fresh(tx: ManagedTransaction, changes: list[EventMutations]) -> list[EventMutations]:
    """The changes whose event_id is neither applied already nor repeated in this batch;
    `RejectedEvents` for a copy with another payload (read in the transaction, so that two
    writers cannot both take one event_id)."""
    ids = sorted({c.record.event_id for c in changes})
    rows = tx.run(cypher.APPLIED_IDS, ids=ids).single(strict=True)["applied"]
    return first_copies(changes, {str(i): str(h) for i, h in rows})
