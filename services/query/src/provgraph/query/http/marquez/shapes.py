"""Read-model views in Marquez's response shapes (pure): namespace, dataset, dataset version,
job, run, search result, and the list envelope.

Kept OpenLineage facets (stored as `<name>_json`, `provgraph.schemas.storage`) come back under
their OpenLineage names; a dataset's `fields` are its `schema` facet's. Marquez's versions are
UUIDs; provgraph's are the version labels (`v1`, `run-<runId>`), strings either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from provgraph.query.http.marquez.ids import (
    answer_id,
    name_of,
    namespace_of,
    prop_text,
    run_key,
)
from provgraph.query.read.model import (
    DatasetDetail,
    JobDetail,
    NamespaceView,
    NodeView,
    RunDetail,
    Slice,
    VersionDetail,
    VersionRef,
)
from provgraph.schemas import storage
from provgraph.schemas.graph import Label

DATASET_FACETS = {
    "schema": "schema",
    "dataSource": "datasource",
    "documentation": "documentation",
    "columnLineage": "column_lineage",
}
JOB_FACETS = {"documentation": "documentation", "sql": "sql"}
RUN_FACETS = {"nominalTime": "nominal_time", "errorMessage": "error_message"}
RUN_STATES = {
    "running": "RUNNING",
    "completed": "COMPLETED",
    "failed": "FAILED",
    "aborted": "ABORTED",
}
"""provgraph's run status -> Marquez's run state (a run without a status yet is NEW)."""


def page(key: str, found: Slice, shape: Any) -> dict[str, Any]:
    """A Marquez list: `totalCount` and the shaped items under `key`."""
    return {"totalCount": found.total, key: [shape(item) for item in found.items]}


def facets(props: Mapping[str, Any], kept: Mapping[str, str]) -> dict[str, Any]:
    """The kept facets stored on a node, by their OpenLineage names."""
    out: dict[str, Any] = {}
    for facet, name in kept.items():
        value = storage.decode_json(props, name)
        if value is not None:
            out[facet] = value
    return out


def fields(props: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A dataset's fields from its `schema` facet ({name, type, tags, description})."""
    schema = storage.decode_json(props, "schema")
    found = schema.get("fields") if isinstance(schema, Mapping) else None
    return [
        {
            "name": str(f.get("name")),
            "type": f.get("type"),
            "tags": [],
            "description": f.get("description"),
        }
        for f in found or ()
        if isinstance(f, Mapping) and f.get("name") is not None
    ]


def namespace(view: NamespaceView) -> dict[str, Any]:
    """A Marquez Namespace."""
    return {
        "name": view.name,
        "createdAt": view.created_at,
        "updatedAt": view.updated_at,
        "ownerName": view.owner,
        "description": None,
        "isHidden": False,
    }


def dataset_key(node: NodeView) -> dict[str, str]:
    """A Marquez DatasetId {namespace, name}."""
    return {"namespace": namespace_of(node), "name": name_of(node)}


def _dataset_common(dataset: NodeView, described: NodeView) -> dict[str, Any]:
    """What a dataset and a dataset version share; `described` holds the facets."""
    key = dataset_key(dataset)
    props = described.props
    return {
        "type": "DB_TABLE",
        "name": key["name"],
        "physicalName": key["name"],
        "namespace": key["namespace"],
        "sourceName": prop_text(props, "datasource_name") or key["namespace"],
        "fields": fields(props),
        "tags": [],
        "description": prop_text(props, "description") or prop_text(dataset.props, "description"),
        "facets": facets(props, DATASET_FACETS),
    }


def dataset(detail: DatasetDetail) -> dict[str, Any]:
    """A Marquez Dataset; its current version is the latest by `created_at`."""
    node, current = detail.dataset, detail.current
    described = node if storage.json_key("schema") in node.props or current is None else current
    return {
        "id": dataset_key(node),
        **_dataset_common(node, described),
        "createdAt": node.first_seen_at,
        "updatedAt": node.last_event_at,
        "lastModifiedAt": _created_at(current) if current is not None else None,
        "lastLifecycleState": None,
        "currentVersion": _version_label(current) if current is not None else None,
        "columnLineage": None,
        "deleted": node.deleted_at is not None,
        "nodeId": answer_id(node),
    }


def dataset_version(detail: VersionDetail) -> dict[str, Any]:
    """A Marquez DatasetVersion, with the run that created it."""
    version, node = detail.version, detail.dataset
    label = _version_label(version)
    return {
        "id": {**dataset_key(node), "version": label},
        **_dataset_common(node, version),
        "createdAt": _created_at(version),
        "version": label,
        "lifecycleState": None,
        "createdByRun": run(detail.created_by) if detail.created_by is not None else None,
    }


def _version_id(ref: VersionRef) -> dict[str, Any]:
    return {**dataset_key(ref.dataset), "version": _version_label(ref.version)}


def run(detail: RunDetail) -> dict[str, Any]:
    """A Marquez Run: state as Marquez spells it, its input and output dataset versions."""
    node, props = detail.run, detail.run.props
    started, ended = prop_text(props, "started_at"), prop_text(props, "ended_at")
    job = detail.job
    return {
        "id": run_key(node),
        "createdAt": node.first_seen_at,
        "updatedAt": node.last_event_at,
        "nominalStartTime": prop_text(props, "nominal_start_time"),
        "nominalEndTime": prop_text(props, "nominal_end_time"),
        "state": RUN_STATES.get(str(props.get("status")), "NEW"),
        "startedAt": started,
        "endedAt": ended,
        "durationMs": duration_ms(started, ended),
        "args": _args(props),
        "jobVersion": (
            {"namespace": namespace_of(job), "name": name_of(job), "version": None}
            if job is not None
            else None
        ),
        "inputDatasetVersions": [
            {"datasetVersionId": _version_id(ref), "facets": {}} for ref in detail.inputs
        ],
        "outputDatasetVersions": [
            {"datasetVersionId": _version_id(ref), "facets": {}} for ref in detail.outputs
        ],
        "context": {},
        "facets": facets(props, RUN_FACETS),
    }


def job(detail: JobDetail) -> dict[str, Any]:
    """A Marquez Job; its inputs and outputs are those of its latest run."""
    node, latest = detail.job, detail.latest_run
    name = name_of(node)
    props = node.props
    return {
        "id": {"namespace": namespace_of(node), "name": name},
        "type": "BATCH",
        "name": name,
        "simpleName": name,
        "parentJobName": None,
        "createdAt": node.first_seen_at,
        "updatedAt": node.last_event_at,
        "namespace": namespace_of(node),
        "inputs": _distinct_keys(
            [ref.dataset for ref in latest.inputs] + list(latest.reads) if latest else []
        ),
        "outputs": _distinct_keys([ref.dataset for ref in latest.outputs] if latest else []),
        "location": None,
        "description": prop_text(props, "description") or prop_text(props, "goal"),
        "latestRun": run(latest) if latest is not None else None,
        "latestRuns": [run(latest)] if latest is not None else [],
        "facets": facets(props, JOB_FACETS),
        "currentVersion": None,
        "labels": [],
        "tags": [],
        "nodeId": answer_id(node),
    }


def search_result(node: NodeView) -> dict[str, Any]:
    """One Marquez search result {type, name, namespace, nodeId, updatedAt}."""
    return {
        "type": "DATASET" if node.type == Label.DATASET.value else "JOB",
        "name": name_of(node),
        "namespace": namespace_of(node),
        "nodeId": answer_id(node),
        "updatedAt": node.last_event_at,
    }


def duration_ms(started: str | None, ended: str | None) -> int | None:
    """Milliseconds from `started` to `ended` (ISO 8601), None unless both are known."""
    if not started or not ended:
        return None
    try:
        delta = datetime.fromisoformat(ended) - datetime.fromisoformat(started)
    except ValueError:
        return None
    return int(delta.total_seconds() * 1000)


def _args(props: Mapping[str, Any]) -> dict[str, str]:
    """A provgraph run's parameters as Marquez's `args` (text values)."""
    params = storage.decode_json(props, storage.PARAMS)
    if not isinstance(params, Mapping):
        return {}
    return {str(k): v if isinstance(v, str) else storage.encode_json(v) for k, v in params.items()}


def _created_at(version: NodeView) -> str | None:
    return prop_text(version.props, "created_at") or version.first_seen_at


def _version_label(version: NodeView) -> str:
    return prop_text(version.props, "version") or version.id.rsplit("@", 1)[-1]


def _distinct_keys(nodes: Iterable[NodeView]) -> list[dict[str, str]]:
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for node in nodes:
        key = dataset_key(node)
        seen.setdefault((key["namespace"], key["name"]), key)
    return [seen[k] for k in sorted(seen)]
