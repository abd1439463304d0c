"""An OpenLineage event wrapped in the provgraph envelope: ids, project, event_id, subject.

One function, `wrap`, used by the HTTP endpoint and by the projector for raw OpenLineage
records written to the log by OpenLineage's Kafka transport, so both paths give the same
event. The event_id is a UUIDv5 of what identifies the OpenLineage event (for a run event:
runId, eventType and eventTime), so a resend is a duplicate and folds in once.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from pydantic import ValidationError

from provgraph.ingest.openlineage.names import NamespaceMap
from provgraph.ingest.openlineage.spec import (
    OpenLineageKind,
    kind_of,
    looks_like_openlineage,
    spec_errors,
)
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import ContractError, Event, parse_event
from provgraph.schemas.events.openlineage import (
    OpenLineageDataset,
    OpenLineageDatasetEvent,
    OpenLineageDatasetEventPayload,
    OpenLineageJobEvent,
    OpenLineageJobEventPayload,
    OpenLineageRunEvent,
    OpenLineageRunEventPayload,
    ol_name,
    ol_version,
    run_version,
)
from provgraph.schemas.ids import dataset_id, dataset_version_id, job_id

EVENT_ID_NAMESPACE = uuid5(NAMESPACE_URL, "https://provgraph.dev/openlineage")
"""The UUIDv5 namespace of event ids derived from OpenLineage events."""


class WrapError(ValueError):
    """The OpenLineage event is valid per its spec but cannot become a provgraph event."""


def _job(ref: Mapping[str, Any], names: NamespaceMap) -> str:
    return job_id(names.project(str(ref["namespace"])), ol_name(str(ref["name"])))


def _version_facet(dataset: Mapping[str, Any]) -> str | None:
    facet = (dataset.get("facets") or {}).get("version") or {}
    version = facet.get("datasetVersion")
    return str(version) if version else None


def _dataset(ds: Mapping[str, Any], names: NamespaceMap, default: str | None) -> OpenLineageDataset:
    namespace, name = str(ds["namespace"]), str(ds["name"])
    project, pg_name = names.project(namespace), ol_name(name)
    label = _version_facet(ds)
    version = ol_version(label) if label else default
    return OpenLineageDataset(
        namespace=namespace,
        name=name,
        dataset=dataset_id(project, pg_name),
        version=dataset_version_id(project, pg_name, version) if version else None,
    )


def _datasets(
    items: Any, names: NamespaceMap, default: str | None
) -> tuple[OpenLineageDataset, ...]:
    return tuple(_dataset(ds, names, default) for ds in items or ())


def _run_payload(event: dict[str, Any], names: NamespaceMap) -> OpenLineageRunEventPayload:
    run_key = str(event["run"]["runId"])
    parent = (event["run"].get("facets") or {}).get("parent") or {}
    parent_run = (parent.get("run") or {}).get("runId")
    return OpenLineageRunEventPayload(
        event=event,
        run_id=run_key,
        state=event.get("eventType"),
        job=_job(event["job"], names),
        # An input without a version facet has no version id: the projection records that the
        # run READS the dataset and infers the version (docs/openlineage.md).
        inputs=_datasets(event.get("inputs"), names, None),
        outputs=_datasets(event.get("outputs"), names, run_version(run_key)),
        parent_run=f"run:{parent_run}" if parent_run else None,
        parent_job=_job(parent["job"], names) if parent.get("job") else None,
    )


def _event_id(event: dict[str, Any], kind: OpenLineageKind) -> UUID:
    if kind is OpenLineageKind.RUN:
        key = f"run|{event['run']['runId']}|{event.get('eventType', '')}|{event['eventTime']}"
    else:
        ref = event["dataset"] if kind is OpenLineageKind.DATASET else event["job"]
        key = f"{kind.value}|{ref['namespace']}|{ref['name']}|{event['eventTime']}"
    return uuid5(EVENT_ID_NAMESPACE, key)


def _build(event: dict[str, Any], names: NamespaceMap) -> Event:
    kind = kind_of(event)
    if kind is OpenLineageKind.RUN:
        payload: Any = _run_payload(event, names)
        cls: type[Event] = OpenLineageRunEvent
        project = names.project(str(event["job"]["namespace"]))
    elif kind is OpenLineageKind.DATASET:
        ds = _dataset(event["dataset"], names, None)
        payload, cls = (
            OpenLineageDatasetEventPayload(event=event, dataset=ds),
            OpenLineageDatasetEvent,
        )
        project = names.project(ds.namespace)
    else:
        inputs = _datasets(event.get("inputs"), names, None)
        outputs = _datasets(event.get("outputs"), names, None)
        job = _job(event["job"], names)
        payload = OpenLineageJobEventPayload(event=event, job=job, inputs=inputs, outputs=outputs)
        cls, project = OpenLineageJobEvent, names.project(str(event["job"]["namespace"]))
    producer = str(event["producer"])
    return cls.create(
        project=project,
        producer=producer,
        actor=f"openlineage:{producer}"[:256],
        payload=payload,
        occurred_at=_event_time(str(event["eventTime"])),
        event_id=_event_id(event, kind),
    )


def _event_time(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise WrapError(f"eventTime {value!r} is not an ISO 8601 date-time") from None
    if moment.tzinfo is None:
        raise WrapError(f"eventTime {value!r} has no timezone")
    return moment


def wrap(event: dict[str, Any], names: NamespaceMap) -> Event:
    """The provgraph event of a (spec-valid) OpenLineage event; `WrapError` if it cannot be."""
    try:
        return _build(event, names)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WrapError(f"cannot map to provgraph ids: {where}: {first['msg']}") from None
    except (KeyError, TypeError) as exc:
        raise WrapError(f"cannot map to provgraph ids: missing or wrong {exc}") from None


def decode_log_value(raw: bytes, names: NamespaceMap | None = None) -> Event:
    """Read one record of the event log: a provgraph event, or a raw OpenLineage event (as
    OpenLineage's Kafka transport writes it), which is checked against the OpenLineage
    schema and wrapped like the HTTP endpoint does (`names` default: the configured map)."""
    if b'"event_type"' in raw:
        # The common case on the projector's hot path, a provgraph envelope: parse it once.
        # Anything else (poison, or OpenLineage mentioning the key) takes the path below.
        with contextlib.suppress(ContractError):
            return parse_event(raw)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return parse_event(raw)  # let the contract produce its precise error
    if not looks_like_openlineage(data):
        return parse_event(raw)
    problems = spec_errors(data)
    if problems:
        first = problems[0]
        raise WrapError(f"not a valid OpenLineage event: {first.path}: {first.reason}")
    return wrap(data, names or _configured_names())


@cache
def _configured_names() -> NamespaceMap:
    # Read once per process: the projector decodes every record of the log with it.
    return NamespaceMap(IngestSettings().openlineage_namespace_projects)
