"""Environment events: the image and packages a run executed in."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from provgraph.schemas.envelope import ContractModel, Event, Payload, UtcDatetime
from provgraph.schemas.events.common import (
    Checksum,
    ExactVersion,
    JsonMap,
    Label,
    PackageMap,
    VersionMap,
)
from provgraph.schemas.ids import EnvironmentId, EnvironmentKey, environment_id


class ImageRef(ContractModel):
    """A container image: name, tag and content digest."""

    name: str = Field(min_length=1, max_length=512)
    tag: Label | None = None
    digest: Checksum | None = None


class EnvironmentSnapshotRecordedPayload(Payload):
    """A snapshot of an execution environment.

    Subject: ``environment:<project>/<key>``; use the image digest as the key when there is
    one, else a stable name (``trainer-cu121-2024-05``).
    """

    key: EnvironmentKey
    image: ImageRef | None = None
    base_image: ImageRef | None = None
    based_on: EnvironmentId | None = None
    python_version: ExactVersion | None = None
    frameworks: VersionMap = Field(default_factory=dict)
    parallel_libs: VersionMap = Field(default_factory=dict)
    driver_version: Label | None = None
    compute_libs: VersionMap = Field(default_factory=dict)
    packages: PackageMap = Field(default_factory=dict)
    system: JsonMap = Field(default_factory=dict)
    built_at: UtcDatetime | None = None
    built_by: Label | None = None

    def subject(self, project: str) -> str:
        return environment_id(project, self.key)


class EnvironmentSnapshotRecorded(Event):
    """``environment.snapshot.recorded`` v1."""

    event_type: Literal["environment.snapshot.recorded"] = "environment.snapshot.recorded"
    schema_version: Literal[1] = 1
    payload: EnvironmentSnapshotRecordedPayload
