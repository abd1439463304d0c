"""The reads of the Marquez API over Neo4j: `MarquezReader` implements `MarquezReads`.

One round trip per call, like `GraphReader` (the same session, the same scope parameters); its
Cypher stands beside it in `read/marquez_cypher.py`. Namespaces and names are Marquez's: an
OpenLineage-born dataset or job by its OpenLineage namespace and name (its indexed `marquez_id`,
`read/marquez_ids.py`), one born in provgraph by its project and name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import Record

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read import marquez_cypher
from provgraph.query.read.convert import label_of, node_view, scope_params
from provgraph.query.read.marquez_ids import marquez_id, marquez_label
from provgraph.query.read.model import (
    DatasetDetail,
    JobDetail,
    NamespaceView,
    RunDetail,
    Scope,
    Slice,
    VersionDetail,
    VersionRef,
)
from provgraph.query.read.session import ReadSession
from provgraph.query.settings import QuerySettings
from provgraph.schemas import storage

MAX_OFFSET = 2**30
"""An `offset` past this one is read as this one: past the end of any list (an empty page).
Marquez's offsets are Java ints; this keeps `offset + limit` one too (Cypher's list slices
take nothing larger), whatever the caller sends."""


class MarquezReader:
    """Reads the graph by Marquez's keys; every method applies the caller's `Scope`."""

    def __init__(self, session: ReadSession, settings: QuerySettings | None = None) -> None:
        self._session = session
        self._settings = settings or QuerySettings()

    def _read(self, text: str, scope: Scope, params: dict[str, Any]) -> list[Record]:
        return self._session.run(text, {**scope_params(scope), **params})

    def _slice(self, limit: int, offset: int) -> dict[str, int]:
        return page_window(limit, offset, self._settings.page_max_size)

    def resolve_marquez_id(self, marquez_id: str, scope: Scope) -> str | None:
        """The provgraph id of the Dataset or Job whose `marquez_id` is `marquez_id`."""
        label = marquez_label(marquez_id)
        if label is None:
            return None
        records = self._read(marquez_cypher.marquez_node(label), scope, {"mid": marquez_id})
        return str(records[0]["id"]) if records else None

    def namespaces(
        self, scope: Scope, *, name: str | None = None, limit: int = 100, offset: int = 0
    ) -> Slice:
        """Namespaces (items: NamespaceView) by name; `name` keeps that one alone."""
        params = {"name": name, **self._slice(limit, offset)}
        record = self._read(marquez_cypher.MARQUEZ_NAMESPACES, scope, params)[0]
        items = tuple(NamespaceView(**row) for row in record["items"])
        return Slice(items=items, total=int(record["total"]))

    def datasets(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        """Live datasets of a namespace by name (items: DatasetDetail)."""
        params = {"ns": namespace, **self._slice(limit, offset)}
        record = self._read(marquez_cypher.MARQUEZ_DATASETS, scope, params)[0]
        items = tuple(_dataset_detail(row["dataset"], row["current"]) for row in record["items"])
        return Slice(items=items, total=int(record["total"]))

    def dataset(self, namespace: str, name: str, scope: Scope) -> DatasetDetail | None:
        """One dataset by namespace and name."""
        records = self._read(
            marquez_cypher.MARQUEZ_DATASET, scope, _keys("dataset", namespace, name)
        )
        return _dataset_detail(records[0]["dataset"], records[0]["current"]) if records else None

    def dataset_versions(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        """The versions of a dataset, newest first (items: VersionDetail); None: no dataset."""
        params = {**_keys("dataset", namespace, name), **self._slice(limit, offset)}
        records = self._read(marquez_cypher.MARQUEZ_DATASET_VERSIONS, scope, params)
        if not records:
            return None
        items = tuple(_version_detail(row) for row in records[0]["items"])
        return Slice(items=items, total=int(records[0]["total"]))

    def dataset_version(
        self, namespace: str, name: str, version: str, scope: Scope
    ) -> VersionDetail | None:
        """One version of a dataset by its version label."""
        params = {**_keys("dataset", namespace, name), "version": version}
        records = self._read(marquez_cypher.MARQUEZ_DATASET_VERSION, scope, params)
        return _version_detail(records[0]["detail"]) if records else None

    def jobs(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        """Live jobs (and experiments) of a namespace by name (items: JobDetail)."""
        params = {"ns": namespace, **self._slice(limit, offset)}
        record = self._read(marquez_cypher.MARQUEZ_JOBS, scope, params)[0]
        items = tuple(_job_detail(row["job"], row["latest_run"]) for row in record["items"])
        return Slice(items=items, total=int(record["total"]))

    def job(self, namespace: str, name: str, scope: Scope) -> JobDetail | None:
        """One job (or experiment) by namespace and name, with its latest run."""
        records = self._read(marquez_cypher.MARQUEZ_JOB, scope, _keys("job", namespace, name))
        return _job_detail(records[0]["job"], records[0]["latest_run"]) if records else None

    def job_runs(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        """The runs of a job, newest first (items: RunDetail); None: no such job."""
        params = {**_keys("job", namespace, name), **self._slice(limit, offset)}
        records = self._read(marquez_cypher.MARQUEZ_JOB_RUNS, scope, params)
        if not records:
            return None
        items = tuple(_run_detail(row) for row in records[0]["items"])
        return Slice(items=items, total=int(records[0]["total"]))

    def run(self, run_id: str, scope: Scope) -> RunDetail | None:
        """One run by provgraph id (`run:<runId>`)."""
        records = self._read(marquez_cypher.MARQUEZ_RUN, scope, {"id": run_id})
        return _run_detail(records[0]["detail"]) if records else None

    def marquez_search(
        self,
        pattern: str,
        scope: Scope,
        *,
        kinds: Sequence[str] = (),
        by_update: bool = False,
        limit: int = 10,
    ) -> Slice:
        """Live datasets and jobs whose name matches `pattern` (a case-insensitive regular
        expression), by name or newest update first (items: NodeView)."""
        params = {
            "pattern": pattern,
            "kinds": [label_of(k).value for k in kinds],
            "by_update": by_update,
            "limit": page_window(limit, 0, self._settings.page_max_size)["limit"],
        }
        record = self._read(marquez_cypher.MARQUEZ_SEARCH, scope, params)[0]
        items = tuple(node_view(n) for n in record["items"])
        return Slice(items=items, total=int(record["total"]))


def page_window(limit: int, offset: int, ceiling: int) -> dict[str, int]:
    """The SKIP/LIMIT of a page, as Marquez pages: any non-negative `limit` and `offset`; at most
    `ceiling` items served (the total stays true), an offset past the end an empty page."""
    for name, value in (("limit", limit), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidArgumentError(
                f"{name} must be a non-negative integer, got {value!r}", {name: value}
            )
    return {"limit": min(limit, ceiling), "offset": min(offset, MAX_OFFSET)}


def _keys(kind: str, namespace: str, name: str) -> dict[str, str]:
    """The parameters naming one dataset or job: its Marquez id, namespace and name."""
    return {"mid": marquez_id(kind, namespace, name), "ns": namespace, "name": name}


def _dataset_detail(dataset: Any, current: Any) -> DatasetDetail:
    return DatasetDetail(
        dataset=node_view(dataset), current=node_view(current) if current is not None else None
    )


def _version_ref(row: dict[str, Any]) -> VersionRef:
    return VersionRef(
        version=node_view(row["version"]),
        dataset=node_view(row["dataset"]),
        props=storage.public(row.get("props") or {}),
    )


def _run_detail(row: dict[str, Any]) -> RunDetail:
    return RunDetail(
        run=node_view(row["run"]),
        job=node_view(row["job"]) if row.get("job") is not None else None,
        inputs=tuple(_version_ref(x) for x in row["inputs"]),
        outputs=tuple(_version_ref(x) for x in row["outputs"]),
        reads=tuple(node_view(n) for n in row["reads"]),
    )


def _version_detail(row: dict[str, Any]) -> VersionDetail:
    run = row.get("created_by")
    return VersionDetail(
        version=node_view(row["version"]),
        dataset=node_view(row["dataset"]),
        created_by=_run_detail(run) if run is not None else None,
    )


def _job_detail(job: Any, latest_run: Any) -> JobDetail:
    return JobDetail(
        job=node_view(job), latest_run=_run_detail(latest_run) if latest_run is not None else None
    )
