"""`MarquezReads` in memory: a graph's nodes and edges (none by default, an empty world),
answered as `MarquezReader` answers over Neo4j (`read/marquez_cypher.py`).

Each read applies the caller's scope where the reader's Cypher applies `visible`: to every node
it returns or walks through, so a node of an unreadable project is answered like a missing one.
`tests/contracts/marquez_reads.py` holds this fake and the Neo4j reader to the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from fake_reader import seen_by

from provgraph.query.read.convert import label_of
from provgraph.query.read.marquez_ids import marquez_id, marquez_label
from provgraph.query.read.marquez_reads import page_window
from provgraph.query.read.model import (
    DatasetDetail,
    EdgeView,
    JobDetail,
    NamespaceView,
    NodeView,
    RunDetail,
    Scope,
    Slice,
    VersionDetail,
    VersionRef,
)
from provgraph.query.settings import QuerySettings
from provgraph.schemas.graph import MARQUEZ_ID, Label, Rel
from provgraph.schemas.storage import public

DATASET, VERSION, RUN = Label.DATASET.value, Label.DATASET_VERSION.value, Label.RUN.value
JOBS = frozenset({Label.JOB.value, Label.EXPERIMENT.value})
MARQUEZ_TYPES = JOBS | {DATASET}
Step = tuple[EdgeView, NodeView]


def namespace_of(node: NodeView) -> Any:
    """`marquez_namespace`: the OpenLineage namespace, else the project."""
    return _coalesce(node.props.get("ol_namespace"), node.project)


def name_of(node: NodeView) -> Any:
    """`marquez_name`: the OpenLineage name, else the name, the key, the id."""
    props = node.props
    return _coalesce(props.get("ol_name"), props.get("name"), props.get("key"), node.id)


def _coalesce(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _live(node: NodeView) -> bool:
    return node.deleted_at is None


def _by_name(node: NodeView) -> tuple[str, str]:
    return str(name_of(node)), node.id


def _newest(stamp: str) -> Callable[[NodeView], tuple[str, str]]:
    """The sort key of `coalesce(<stamp>, first_seen_at), id`, to be sorted in reverse."""
    return lambda n: (str(_coalesce(n.props.get(stamp), n.first_seen_at, "")), n.id)


def _first_live(nodes: Iterable[NodeView]) -> NodeView | None:
    """`ORDER BY deleted_at IS NOT NULL, id LIMIT 1`."""
    return min(nodes, key=lambda n: (n.deleted_at is not None, n.id), default=None)


class FakeMarquezReads:
    """The Marquez reads over nodes and edges in memory."""

    def __init__(
        self,
        nodes: Sequence[NodeView] = (),
        edges: Sequence[EdgeView] = (),
        settings: QuerySettings | None = None,
    ) -> None:
        self.by_id = {n.id: n for n in nodes}
        self.edges = list(edges)
        self.settings = settings or QuerySettings()

    # ---- what every read applies ---------------------------------------------------------------

    def _steps(self, node_id: str, rel: Rel, *, outgoing: bool) -> Iterator[Step]:
        """The `rel` neighbours of `node_id` over its outgoing (or incoming) edges."""
        for edge in self.edges:
            near, far = (edge.src, edge.dst) if outgoing else (edge.dst, edge.src)
            if edge.type == rel.value and near == node_id and far in self.by_id:
                yield edge, self.by_id[far]

    def _page(self, found: Sequence[Any], limit: int, offset: int) -> Slice:
        window = page_window(limit, offset, self.settings.page_max_size)
        start = window["offset"]
        return Slice(items=tuple(found[start : start + window["limit"]]), total=len(found))

    def _named(
        self, kinds: frozenset[str], kind: str, ns: str, name: str, scope: Scope
    ) -> NodeView | None:
        """The dataset or job `name` of namespace `ns` (`_named`): an OpenLineage-born one by
        its Marquez id, one born in provgraph by project and name."""
        key = marquez_id(kind, ns, name)

        def named(n: NodeView) -> bool:
            born_here = n.props.get("ol_namespace") is None and n.project == ns
            return n.props.get(MARQUEZ_ID) == key or (born_here and name_of(n) == name)

        return _first_live(
            n
            for n in self.by_id.values()
            if n.type in kinds and named(n) and namespace_of(n) == ns and seen_by(n, scope, None)
        )

    def _in_namespace(self, kinds: frozenset[str], ns: str, scope: Scope) -> list[NodeView]:
        found = (
            n
            for n in self.by_id.values()
            if n.type in kinds and namespace_of(n) == ns and seen_by(n, scope, None) and _live(n)
        )
        return sorted(found, key=_by_name)

    # ---- run, version and dataset details ------------------------------------------------------

    def _ends(self, node_id: str, rel: Rel, kind: str, scope: Scope, *, out: bool) -> list[Any]:
        """The readable `kind` nodes one `rel` step from `node_id`, by id (Cypher's `(n:kind)`
        for a job is Job or Experiment)."""
        kinds = JOBS if kind == Label.JOB else {kind}
        found = (
            n
            for _, n in self._steps(node_id, rel, outgoing=out)
            if n.type in kinds and seen_by(n, scope, None)
        )
        return sorted(found, key=lambda n: n.id)

    def _refs(self, steps: Iterable[Step], scope: Scope) -> tuple[VersionRef, ...]:
        refs = [
            VersionRef(version, dataset, public(edge.props))
            for edge, version in steps
            if version.type == VERSION and seen_by(version, scope, None)
            for dataset in self._ends(version.id, Rel.VERSION_OF, DATASET, scope, out=True)
        ]
        return tuple(sorted(refs, key=lambda r: r.version.id))

    def _run_detail(self, run: NodeView, scope: Scope) -> RunDetail:
        jobs = self._ends(run.id, Rel.PART_OF, Label.JOB, scope, out=True)
        return RunDetail(
            run=run,
            job=jobs[0] if jobs else None,
            inputs=self._refs(self._steps(run.id, Rel.USED, outgoing=True), scope),
            outputs=self._refs(self._steps(run.id, Rel.GENERATED_BY, outgoing=False), scope),
            reads=tuple(self._ends(run.id, Rel.READS, DATASET, scope, out=True)),
        )

    def _versions(self, dataset: NodeView, scope: Scope) -> list[NodeView]:
        """The readable versions of `dataset`, newest first (deleted ones too)."""
        found = self._ends(dataset.id, Rel.VERSION_OF, VERSION, scope, out=False)
        return sorted(found, key=_newest("created_at"), reverse=True)

    def _dataset_detail(self, dataset: NodeView, scope: Scope) -> DatasetDetail:
        live = [v for v in self._versions(dataset, scope) if _live(v)]
        return DatasetDetail(dataset=dataset, current=live[0] if live else None)

    def _version_detail(self, version: NodeView, dataset: NodeView, scope: Scope) -> VersionDetail:
        runs = self._ends(version.id, Rel.GENERATED_BY, RUN, scope, out=True)
        made = self._run_detail(runs[0], scope) if runs else None
        return VersionDetail(version=version, dataset=dataset, created_by=made)

    def _runs(self, job: NodeView, scope: Scope) -> list[NodeView]:
        """The readable runs of `job`, newest start first."""
        found = self._ends(job.id, Rel.PART_OF, RUN, scope, out=False)
        return sorted(found, key=_newest("started_at"), reverse=True)

    def _job_detail(self, job: NodeView, scope: Scope) -> JobDetail:
        runs = self._runs(job, scope)
        return JobDetail(job=job, latest_run=self._run_detail(runs[0], scope) if runs else None)

    # ---- the port ------------------------------------------------------------------------------

    def resolve_marquez_id(self, marquez_id: str, scope: Scope) -> str | None:
        label = marquez_label(marquez_id)
        found = _first_live(
            n
            for n in self.by_id.values()
            if label is not None
            and n.type == label
            and n.props.get(MARQUEZ_ID) == marquez_id
            and seen_by(n, scope, None)
        )
        return found.id if found is not None else None

    def namespaces(
        self, scope: Scope, *, name: str | None = None, limit: int = 100, offset: int = 0
    ) -> Slice:
        page_window(limit, offset, self.settings.page_max_size)
        members: dict[str, list[NodeView]] = {}
        for n in self.by_id.values():
            if n.type in MARQUEZ_TYPES and seen_by(n, scope, None) and _live(n):
                members.setdefault(namespace_of(n), []).append(n)
        found = [
            _namespace(ns, nodes)
            for ns, nodes in sorted(members.items())
            if name is None or ns == name
        ]
        return self._page(found, limit, offset)

    def datasets(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        page = self._page(self._in_namespace(frozenset({DATASET}), namespace, scope), limit, offset)
        items = tuple(self._dataset_detail(d, scope) for d in page.items)
        return Slice(items=items, total=page.total)

    def dataset(self, namespace: str, name: str, scope: Scope) -> DatasetDetail | None:
        found = self._named(frozenset({DATASET}), "dataset", namespace, name, scope)
        return self._dataset_detail(found, scope) if found is not None else None

    def dataset_versions(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        page_window(limit, offset, self.settings.page_max_size)
        found = self._named(frozenset({DATASET}), "dataset", namespace, name, scope)
        if found is None:
            return None
        live = [v for v in self._versions(found, scope) if _live(v)]
        page = self._page(live, limit, offset)
        items = tuple(self._version_detail(v, found, scope) for v in page.items)
        return Slice(items=items, total=page.total)

    def dataset_version(
        self, namespace: str, name: str, version: str, scope: Scope
    ) -> VersionDetail | None:
        found = self._named(frozenset({DATASET}), "dataset", namespace, name, scope)
        if found is None:
            return None
        labelled = [v for v in self._versions(found, scope) if v.props.get("version") == version]
        first = min(labelled, key=lambda v: v.id, default=None)
        return self._version_detail(first, found, scope) if first is not None else None

    def jobs(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        page = self._page(self._in_namespace(JOBS, namespace, scope), limit, offset)
        items = tuple(self._job_detail(j, scope) for j in page.items)
        return Slice(items=items, total=page.total)

    def job(self, namespace: str, name: str, scope: Scope) -> JobDetail | None:
        found = self._named(JOBS, "job", namespace, name, scope)
        return self._job_detail(found, scope) if found is not None else None

    def job_runs(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        page_window(limit, offset, self.settings.page_max_size)
        found = self._named(JOBS, "job", namespace, name, scope)
        if found is None:
            return None
        page = self._page(self._runs(found, scope), limit, offset)
        items = tuple(self._run_detail(r, scope) for r in page.items)
        return Slice(items=items, total=page.total)

    def run(self, run_id: str, scope: Scope) -> RunDetail | None:
        found = self.by_id.get(run_id)
        if found is None or found.type != RUN or not seen_by(found, scope, None):
            return None
        return self._run_detail(found, scope)

    def marquez_search(
        self,
        pattern: str,
        scope: Scope,
        *,
        kinds: Sequence[str] = (),
        by_update: bool = False,
        limit: int = 10,
    ) -> Slice:
        labels = {label_of(k).value for k in kinds}
        size = page_window(limit, 0, self.settings.page_max_size)["limit"]
        # Cypher's `=~` matches the whole text, as `re.fullmatch` does.
        found = sorted(
            (
                n
                for n in self.by_id.values()
                if n.type in MARQUEZ_TYPES
                and seen_by(n, scope, None)
                and _live(n)
                and (not labels or n.type in labels)
                and re.fullmatch(pattern, str(name_of(n)).lower()) is not None
            ),
            key=_by_name,
        )
        if by_update:  # newest update first (a missing stamp first, as Cypher's DESC puts null)
            found.sort(key=lambda n: (n.last_event_at is None, n.last_event_at or ""), reverse=True)
        return Slice(items=tuple(found[:size]), total=len(found))


def _namespace(name: str, nodes: Sequence[NodeView]) -> NamespaceView:
    """A namespace's view: its members' first and last times, and its least project (Cypher's
    `min` and `max` pass over nulls)."""
    created = [n.first_seen_at for n in nodes if n.first_seen_at is not None]
    updated = [n.last_event_at for n in nodes if n.last_event_at is not None]
    owners = [n.project for n in nodes if n.project is not None]
    return NamespaceView(
        name=name,
        created_at=min(created, default=None),
        updated_at=max(updated, default=None),
        owner=min(owners, default=None),
    )
