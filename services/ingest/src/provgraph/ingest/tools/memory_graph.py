"""The graph in memory: mutations applied to dicts with the Neo4j writer's semantics.

An adapter of the writer port and of the graph view: `verify` folds the log into it as the
reference the Neo4j graph is checked against, and tests use it in place of Neo4j.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from provgraph.ingest.ports import BatchWriter, GraphView, Ids, PartitionOffset
from provgraph.ingest.projection import event_props, project_event
from provgraph.ingest.projection.base import label_of
from provgraph.ingest.projection.canonical import CanonicalGraph, Sink, event_key
from provgraph.ingest.projection.completeness import (
    DATASET_VERSION_CREATED,
    MODEL_EVALUATED,
    QUALITY_GATES,
    failed_checks,
    stored_history,
)
from provgraph.ingest.projection.discipline import (
    CONTENT_FIELDS,
    CONTENT_HASH,
    RecordFacts,
    facts_of,
)
from provgraph.ingest.projection.merge import apply_node, apply_series
from provgraph.ingest.projection.mutations import (
    EdgeSetReplace,
    EdgeUpsert,
    EventMutations,
    EventRecord,
    Mutation,
    NodeUpsert,
    ResolveReads,
    SeriesUpsert,
)
from provgraph.ingest.projection.numbering import (
    NUMBER,
    Numbers,
    Scope,
    number,
    numbers_of,
    wanted,
)
from provgraph.ingest.projection.ownership import Owner
from provgraph.ingest.projection.resolution import (
    CREATED_AT,
    ENDED_AT,
    INFERRED_KEY,
    STARTED_AT,
    Facts,
    InferredUse,
    Read,
    Version,
    plan,
)
from provgraph.ingest.projector.rejections import first_copies
from provgraph.schemas import Event
from provgraph.schemas.conventions import job_of
from provgraph.schemas.graph import (
    APPLIED_EVENT_LABEL,
    METRIC_SERIES_LABEL,
    TOUCHED_REL,
    Label,
    Rel,
)
from provgraph.schemas.storage import (
    CLAIMED,
    DELETED_AT,
    EDGE_VERSION,
    FIRST_SEEN_AT,
    PLACEHOLDER,
    PROJECT,
    replaced_version_key,
    stored_value,
)

EdgeKey = tuple[str, str, str, tuple[tuple[str, str], ...]]
# The event types whose first logging the discipline facts read (`graphread._FIRST_LOGGED`).
_FIRST_LOGGED_TYPES = frozenset({DATASET_VERSION_CREATED, MODEL_EVALUATED})
_INFERRED_ITEMS = tuple(sorted(INFERRED_KEY.items()))


def _inferred_key(run: str, version: str) -> EdgeKey:
    return (run, Rel.USED.value, version, _INFERRED_ITEMS)


class _ReadFacts:
    """What the resolution of inferred inputs reads, indexed as relationships are applied
    (the Cypher reads it by pattern): versions, producers and readers of each dataset."""

    def __init__(self) -> None:
        self.versions: dict[str, set[str]] = defaultdict(set)  # dataset -> its versions
        self.producers: dict[str, set[str]] = defaultdict(set)  # version -> runs
        self.readers: dict[str, set[str]] = defaultdict(set)  # dataset -> runs READing it
        self.reading: dict[str, set[str]] = defaultdict(set)  # run -> datasets it READS
        self.inferred: dict[str, dict[str, str]] = defaultdict(dict)  # dataset -> run -> version

    def add(self, m: EdgeUpsert) -> None:
        if m.rel is Rel.VERSION_OF and m.dst_label is Label.DATASET:
            self.versions[m.dst].add(m.src)
        elif m.rel is Rel.GENERATED_BY and m.src_label is Label.DATASET_VERSION:
            self.producers[m.src].add(m.dst)
        elif m.rel is Rel.READS:
            self.readers[m.dst].add(m.src)
            self.reading[m.src].add(m.dst)

    def datasets(self, subjects: Iterable[str]) -> set[str]:
        """The datasets to resolve for `ResolveReads` subjects (a run: those it READS)."""
        found: set[str] = set()
        for subject in subjects:
            is_run = label_of(subject) is Label.RUN
            found |= self.reading.get(subject, set()) if is_run else {subject}
        return found


_OUTPUT_LABELS = (Label.CHECKPOINT, Label.DATASET_VERSION, Label.MODEL_VERSION)


class MemoryGraph(BatchWriter, GraphView):
    """An in-memory projection: the reference the Neo4j graph is checked against."""

    def __init__(self) -> None:
        self.nodes: dict[str, tuple[Label, dict[str, Any]]] = {}
        self.edges: dict[EdgeKey, dict[str, Any]] = {}
        self.edge_sets: dict[tuple[str, str], EdgeSetReplace] = {}
        self.series: dict[str, dict[str, Any]] = {}  # series id -> its properties
        self.events: dict[str, EventRecord] = {}
        self.offsets: dict[tuple[str, int], int] = {}
        self._facts = _ReadFacts()
        self._first_logged: dict[tuple[str, str], str] = {}  # (event type, node) -> log time
        # The place rule's lookups, as the indexes on `uri`/`storage_uri` serve them in Neo4j.
        self._stored_at: dict[str, set[str]] = defaultdict(set)  # uri -> output ids
        self._made_by: dict[str, str] = {}  # output -> the run it is GENERATED_BY (the first)
        self._part_of: dict[str, str] = {}  # run -> the experiment it is PART_OF (the first)
        # The numbering's lookups (`numbers`): experiments by project, runs by experiment.
        self._experiments_in: dict[str, set[str]] = defaultdict(set)
        self._runs_in: dict[str, set[str]] = defaultdict(set)

    def write(
        self, changes: Sequence[EventMutations], offsets: Sequence[PartitionOffset] = ()
    ) -> int:
        """Apply `changes` in order and store `offsets`; return how many events were new.
        A copy of an applied event with another payload raises `RejectedEvents`, as in Neo4j."""
        ids = {change.record.event_id for change in changes}
        known = {i: self.events[i].payload_hash for i in ids if i in self.events}
        applied = sum(self.apply(change) for change in first_copies(changes, known))
        for o in offsets:  # only forward, as in Neo4j
            key = (o.topic, o.partition)
            self.offsets[key] = max(self.offsets.get(key, o.offset), o.offset)
        return applied

    def read_offsets(self, topic: str) -> dict[int, int]:
        """The last stored offset per partition of `topic`."""
        return {p: o for (t, p), o in self.offsets.items() if t == topic}

    def owners(self, ids: Collection[str]) -> dict[str, Owner]:
        """The stored owner of each of `ids` in the graph (as `graphread.OWNERS` reads it)."""
        found = {}
        for node_id in ids:
            if node_id in self.nodes:
                props = self.nodes[node_id][1]
                claimed = bool(props.get(CLAIMED, False)) or not props[PLACEHOLDER]
                found[node_id] = Owner(props[PROJECT], claimed)
        return found

    def discipline_facts(
        self, environments: Ids, projects: Ids, dataset_versions: Ids = (), model_versions: Ids = ()
    ) -> RecordFacts:
        """The stored contents of `environments`, the policy history of `projects`, the
        quality checks of `dataset_versions` and which of `model_versions` are evaluated, with
        when the log appended them (as `graphread.read_discipline_facts` reads them)."""
        found: dict[str, tuple[str, list[str]]] = {}
        for env in environments:
            props = self._props(env)
            if props.get(CONTENT_HASH) is not None:
                found[env] = (str(props[CONTENT_HASH]), list(props.get(CONTENT_FIELDS) or ()))
        histories = {p: stored_history(self._props(f"project:{p}")) for p in projects}
        gates = {d: failed_checks(self._props(d).get(QUALITY_GATES)) for d in dataset_versions}
        created = {d: self._first_logged.get((DATASET_VERSION_CREATED, d), "") for d in gates}
        evaluated = {m: self._first_logged.get((MODEL_EVALUATED, m)) for m in model_versions}
        return facts_of(
            found,
            {p: h for p, h in histories.items() if h},
            {d: (f, created[d]) for d, f in gates.items() if f is not None},
            {m: at for m, at in evaluated.items() if at is not None},
        )

    def output_writers(
        self, uris: Ids, runs: Ids
    ) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str | None]]:
        """The live outputs at `uris` as (record, job), and the experiments of `runs` (as
        `graphread.read_output_writers` reads them)."""
        writers: dict[str, list[tuple[str, str]]] = {}
        for uri in sorted(set(uris)):
            found = []
            for node_id in self._stored_at.get(uri, ()):
                label, props = self.nodes[node_id]
                if label not in _OUTPUT_LABELS or props.get(DELETED_AT) is not None:
                    continue
                if props.get("uri") != uri and props.get("storage_uri") != uri:
                    continue
                run = self._made_by.get(node_id)
                job = job_of(node_id, run, self._part_of.get(run) if run else None)
                found.append((str(props.get(FIRST_SEEN_AT) or ""), node_id, job))
            if found:
                writers[uri] = [(node_id, job) for _, node_id, job in sorted(found)]
        return writers, {run: self._part_of.get(run) for run in runs}

    def _props(self, node_id: str) -> dict[str, Any]:
        return self.nodes[node_id][1] if node_id in self.nodes else {}

    def _numbered(self, change: EventMutations) -> EventMutations:
        """`change` with its experiment or run given its number, as the writer gives it in
        its transaction (`projection.numbering`)."""
        projects, experiments = wanted([change])
        if not projects and not experiments:
            return change
        return number([change], self.numbers(projects, experiments))[0]

    def numbers(self, projects: Ids, experiments: Ids) -> Numbers:
        """The numbers held by the experiments of `projects` and the runs of `experiments`
        (as `graphread.read_numbers` reads them)."""
        rows = []
        for label, scopes, members in (
            (Label.EXPERIMENT, projects, self._experiments_in),
            (Label.RUN, experiments, self._runs_in),
        ):
            for scope in sorted(set(scopes)):
                for node_id in sorted(members.get(scope, ())):
                    held = self.nodes[node_id][1].get(NUMBER[label])
                    if held is not None:
                        rows.append((Scope(label, scope), node_id, int(held)))
        return numbers_of(rows)

    def apply(self, change: EventMutations) -> bool:
        """Apply one event's mutations; False (and nothing changes) for a known event_id,
        whatever its payload: the first copy wins (`verify` folds the log so)."""
        if self.applied(change.record.event_id):
            return False
        change = self._numbered(change)
        # Nodes first, as in the writer: relationships always find both ends; the inferred
        # inputs last, from the facts stored then.
        for m in sorted(change.mutations, key=lambda m: not isinstance(m, NodeUpsert)):
            self._apply(m)
        asks = [m.subject for m in change.mutations if isinstance(m, ResolveReads)]
        for dataset in sorted(self._facts.datasets(asks)):
            self._resolve(dataset)
        record = change.record
        self._keep_event(record)
        if record.event_type in _FIRST_LOGGED_TYPES:  # as `graphread` reads it: the earliest
            at = record.logged_at or record.occurred_at
            for node_id in record.touched:
                key = (record.event_type, node_id)
                self._first_logged[key] = min(self._first_logged.get(key, at), at)
        return True

    def applied(self, event_id: str) -> bool:
        """True when an event with this id was applied."""
        return event_id in self.events

    def _keep_event(self, record: EventRecord) -> None:
        self.events[record.event_id] = record

    def fold(self, events: Iterable[Event]) -> MemoryGraph:
        """Project and apply every event; return self."""
        for event in events:
            self.apply(project_event(event))
        return self

    def _apply(self, m: Mutation) -> None:
        if isinstance(m, NodeUpsert):
            _label, props = self.nodes.setdefault(m.id, (m.label, {}))
            apply_node(props, m)
            for key in ("uri", "storage_uri"):
                if props.get(key) is not None:
                    self._stored_at[str(props[key])].add(m.id)
            if m.label is Label.EXPERIMENT:
                self._experiments_in[m.project].add(m.id)
        elif isinstance(m, EdgeUpsert):
            self._apply_edge(m)
            self._facts.add(m)
            if m.rel == Rel.GENERATED_BY and m.dst_label == Label.RUN:
                self._made_by.setdefault(m.src, m.dst)
            elif m.rel == Rel.PART_OF and m.dst_label == Label.EXPERIMENT:
                self._part_of.setdefault(m.src, m.dst)
                self._runs_in[m.dst].add(m.src)
        elif isinstance(m, EdgeSetReplace):
            self._apply_set(m)
        elif isinstance(m, SeriesUpsert):
            self._apply_series(m)

    def _apply_edge(self, m: EdgeUpsert) -> None:
        props = self.edges.setdefault(m.identity, dict(m.key))
        if m.first_seen and m.first_seen < props.get("first_seen_at", "~"):
            props["first_seen_at"] = m.first_seen
        if m.props and props.get(EDGE_VERSION, "") < m.version:
            props.update({k: stored_value(v) for k, v in m.props.items()})
            props[EDGE_VERSION] = m.version

    def _apply_set(self, m: EdgeSetReplace) -> None:
        current = self.edge_sets.get((m.src, m.rel.value))
        if current is None or current.version < m.version:
            self.edge_sets[(m.src, m.rel.value)] = m
            self.nodes[m.src][1][replaced_version_key(m.rel)] = m.version

    def _apply_series(self, m: SeriesUpsert) -> None:
        # As the writer's Cypher: only on a run of the upsert's project (nodes come first).
        run = self.nodes.get(m.run)
        if run is not None and run[1][PROJECT] == m.project:
            self._keep_series(m)

    def _keep_series(self, m: SeriesUpsert) -> None:
        apply_series(self.series.setdefault(m.id, {}), m)

    def _resolve(self, dataset: str) -> None:
        """Make the inferred USED relationships of `dataset`'s readers what the rule says."""
        change, inferred = plan(self._read_facts(dataset)), self._facts.inferred[dataset]
        for run, version in change.delete:
            del self.edges[_inferred_key(run, version)]
            del inferred[run]
        for use in change.write:
            props = {**INFERRED_KEY, "first_seen_at": use.first_seen}
            self.edges[_inferred_key(use.run, use.version)] = props
            inferred[use.run] = use.version

    def _read_facts(self, dataset: str) -> Facts:
        """What `cypher.RESOLUTION_FACTS` reads about `dataset`."""
        versions = sorted(self._facts.versions.get(dataset, ()))
        readers = sorted(self._facts.readers.get(dataset, ()))
        inferred = [
            InferredUse(run, version, self.edges[_inferred_key(run, version)]["first_seen_at"])
            for run, version in sorted(self._facts.inferred.get(dataset, {}).items())
        ]
        producers = self._facts.producers
        return Facts(
            dataset,
            tuple(
                Version(v, self._prop(v, CREATED_AT), tuple(sorted(producers.get(v, ()))))
                for v in versions
            ),
            tuple(Read(r, self._prop(r, STARTED_AT), self._prop(r, ENDED_AT)) for r in readers),
            tuple(inferred),
        )

    def _prop(self, node_id: str, key: str) -> str | None:
        value = self.nodes[node_id][1].get(key) if node_id in self.nodes else None
        return str(value) if value is not None else None

    def canonical(
        self, project: str | None = None, parts: Collection[int] | None = None
    ) -> CanonicalGraph:
        """The canonical form; with `project`, only its nodes and their outgoing edges; with
        `parts`, only those parts."""
        return CanonicalGraph.collected(lambda sink: self.emit(sink, project), parts)

    def emit(self, sink: Sink, project: str | None = None) -> None:
        """Hand the graph (with `project`, its nodes and their outgoing edges) to `sink`."""
        scope = {k for k, (_, p) in self.nodes.items() if project in (None, p["project"])}
        for key in scope:
            label, props = self.nodes[key]
            sink.add_node(key, [Label.ENTITY.value, label.value], props)
        for (src, rel, dst, _), props in self.edges.items():
            if src in scope:
                sink.add_edge(src, rel, dst, props)
        for (src, rel), m in self.edge_sets.items():
            for target in m.targets if src in scope else ():
                first_seen = m.version.split("|", 1)[0]  # a restated set is new from then on
                sink.add_edge(src, rel, target.id, {**target.props, "first_seen_at": first_seen})
        self._emit_series(sink, project)
        self._emit_events(sink, project)

    def _emit_series(self, sink: Sink, project: str | None) -> None:
        for key, props in self.series.items():
            if project in (None, props[PROJECT]):
                sink.add_node(key, [METRIC_SERIES_LABEL], props)

    def _emit_events(self, sink: Sink, project: str | None) -> None:
        for record in self.events.values():
            if project in (None, record.project):
                emit_event(sink, record.event_id, event_props(record), record.touched)


def emit_event(sink: Sink, event_id: str, props: dict[str, Any], touched: Iterable[str]) -> None:
    """Hand one applied event (its node and its TOUCHED relationships) to `sink`."""
    key = event_key(event_id)
    sink.add_node(key, [APPLIED_EVENT_LABEL], props)
    for node_id in touched:
        sink.add_edge(key, TOUCHED_REL, node_id, {})
