"""OpenLineage events on the provgraph log: the original event verbatim plus the derived ids.

An OpenLineage ``RunEvent``, ``DatasetEvent`` or ``JobEvent`` (spec 2-0-x) is kept verbatim in
``payload.event``; beside it the payload holds the ids provgraph derived from it at ingest, so
replaying the log never depends on the namespace-to-project mapping in force at replay time.

Naming (docs/openlineage.md): an OpenLineage dataset ``(namespace, name)`` is the provgraph
dataset ``dataset:<project>/<name>`` where ``project`` is the namespace mapped to a project
(configured, else a slug of the namespace) and ``name`` is the OpenLineage name when it is a
valid provgraph name, else a readable slug of it with a short hash. Jobs follow the same rule
as ``job:<project>/<name>``; versions (the ``version`` dataset facet) likewise.
"""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from provgraph.schemas.envelope import ContractModel, Event, Payload
from provgraph.schemas.events.common import JsonMap
from provgraph.schemas.ids import (
    NAME_RE,
    PROJECT_RE,
    RUN_KEY_RE,
    VERSION_RE,
    DatasetId,
    DatasetVersionId,
    JobId,
    RunId,
    RunKey,
)
from provgraph.schemas.patterns import whole

_HASH_CHARS = 8
MAX_OL_NAME_CHARS = 1024
"""Longest OpenLineage namespace or name kept (as a property; a job's name is indexed)."""
OlName = Annotated[str, Field(max_length=MAX_OL_NAME_CHARS)]
_OL_NAME_SCHEMA = {"type": "string", "maxLength": MAX_OL_NAME_CHARS}
_JOB_SCHEMA = {
    "type": "object",
    "required": ["namespace", "name"],
    "properties": {"namespace": _OL_NAME_SCHEMA, "name": _OL_NAME_SCHEMA},
}
_NAMED_JOB = {"required": ["job"], "properties": {"job": _JOB_SCHEMA}}
EventWithJob = Annotated[JsonMap, Field(json_schema_extra=_NAMED_JOB)]
"""A verbatim OpenLineage job event: its job has a namespace and a name."""
_RUN_SCHEMA = {
    "type": "object",
    "required": ["runId"],
    "properties": {"runId": {"type": "string", "pattern": whole(RUN_KEY_RE)}},
}
_NAMED_RUN = {"required": ["job", "run"], "properties": {"job": _JOB_SCHEMA, "run": _RUN_SCHEMA}}
EventWithRun = Annotated[JsonMap, Field(json_schema_extra=_NAMED_RUN)]
"""A verbatim OpenLineage run event: a named job, and a run whose runId is the payload's
`run_id` (that they are equal, JSON Schema cannot say)."""


def _short_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:_HASH_CHARS]


def _fit(value: str, pattern: str, limit: int, bad: str, lower: bool = False) -> str:
    """`value` when it matches `pattern`; else a slug of it plus a hash of the original."""
    if re.fullmatch(pattern, value) is not None:
        return value
    slug = re.sub(bad, "-", value.lower() if lower else value).strip("-_.")
    slug = slug[: limit - _HASH_CHARS - 1].rstrip("-_.")
    return f"{slug}-{_short_hash(value)}" if slug else f"ol-{_short_hash(value)}"


def namespace_slug(namespace: str) -> str:
    """The default project of an OpenLineage namespace (``postgres://db:5432`` ->
    ``postgres-db-5432``); lowercase, '-' for every run of other characters, hashed if long."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", namespace.lower()).strip("-_")
    if re.fullmatch(PROJECT_RE, slug) is not None:
        return slug
    return _fit(namespace, PROJECT_RE, 64, r"[^a-z0-9_-]+", lower=True)


def ol_name(name: str) -> str:
    """The provgraph name of an OpenLineage dataset or job name."""
    return _fit(name, NAME_RE, 128, r"[^A-Za-z0-9._-]+")


def ol_version(version: str) -> str:
    """The provgraph version label of an OpenLineage dataset version."""
    return _fit(version, VERSION_RE, 64, r"[^A-Za-z0-9._+-]+")


def run_version(run_id: str) -> str:
    """The version of an output that carries no ``version`` facet: the producing run's."""
    return ol_version(f"run-{run_id}")


def _check_job(event: dict[str, Any]) -> None:
    """The verbatim event's job has a namespace and a name the graph can keep."""
    job = event.get("job")
    names = [job.get(k) for k in ("namespace", "name")] if isinstance(job, dict) else [None]
    if not all(isinstance(n, str) and len(n) <= MAX_OL_NAME_CHARS for n in names):
        raise ValueError(
            f"the verbatim event's job needs a namespace and a name: strings of at most "
            f"{MAX_OL_NAME_CHARS} characters"
        )


class RunState(StrEnum):
    """OpenLineage ``eventType`` of a run event."""

    START = "START"
    RUNNING = "RUNNING"
    COMPLETE = "COMPLETE"
    ABORT = "ABORT"
    FAIL = "FAIL"
    OTHER = "OTHER"


class OpenLineageDataset(ContractModel):
    """One OpenLineage dataset and the provgraph ids it maps to."""

    namespace: OlName
    name: OlName
    dataset: DatasetId
    version: DatasetVersionId | None = None


class OpenLineageRunEventPayload(Payload):
    """An OpenLineage RunEvent. Subject: ``run:<runId>``."""

    event: EventWithRun
    run_id: RunKey
    state: RunState | None = None
    job: JobId
    inputs: tuple[OpenLineageDataset, ...] = ()
    outputs: tuple[OpenLineageDataset, ...] = ()
    parent_run: RunId | None = None
    parent_job: JobId | None = None

    def subject(self, project: str) -> str:
        return f"run:{self.run_id}"

    @model_validator(mode="after")
    def _matches_event(self) -> Self:
        run = self.event.get("run")
        if not isinstance(run, dict) or run.get("runId") != self.run_id:
            raise ValueError("run_id must be the runId of the verbatim event")
        _check_job(self.event)
        return self


class OpenLineageJobEventPayload(Payload):
    """An OpenLineage JobEvent (a job's static metadata). Subject: ``job:<project>/<name>``."""

    event: EventWithJob
    job: JobId
    inputs: tuple[OpenLineageDataset, ...] = ()
    outputs: tuple[OpenLineageDataset, ...] = ()

    def subject(self, project: str) -> str:
        return self.job

    @model_validator(mode="after")
    def _job_named(self) -> Self:
        _check_job(self.event)
        return self


class OpenLineageDatasetEventPayload(Payload):
    """An OpenLineage DatasetEvent. Subject: the dataset version when the ``version`` facet
    names one, else the dataset."""

    event: JsonMap
    dataset: OpenLineageDataset

    def subject(self, project: str) -> str:
        return self.dataset.version or self.dataset.dataset


class OpenLineageRunEvent(Event):
    """``openlineage.run_event`` v1."""

    event_type: Literal["openlineage.run_event"] = "openlineage.run_event"
    schema_version: Literal[1] = 1
    payload: OpenLineageRunEventPayload


class OpenLineageJobEvent(Event):
    """``openlineage.job_event`` v1."""

    event_type: Literal["openlineage.job_event"] = "openlineage.job_event"
    schema_version: Literal[1] = 1
    payload: OpenLineageJobEventPayload


class OpenLineageDatasetEvent(Event):
    """``openlineage.dataset_event`` v1."""

    event_type: Literal["openlineage.dataset_event"] = "openlineage.dataset_event"
    schema_version: Literal[1] = 1
    payload: OpenLineageDatasetEventPayload
