"""Checkpoint events, with their schema evolution (checkpoint.saved v1 -> v2 -> v3), and the
evaluation of a checkpoint that registers no model version (checkpoint.evaluated)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from provgraph.schemas.envelope import Event, Payload, Text, Uuid
from provgraph.schemas.events.common import Checksum, Count, JsonMap, Label, StorageUri
from provgraph.schemas.ids import (
    MAX_STEP,
    CheckpointId,
    DatasetVersionId,
    RunId,
    RunKey,
    checkpoint_id,
    evaluation_id,
)
from provgraph.schemas.limits import INT64_MAX, int_schema

MIB = 1024 * 1024

Step = Annotated[int, Field(ge=0, le=MAX_STEP), WithJsonSchema(int_schema(0, MAX_STEP))]
"""A checkpoint's step: part of its default id, so at most 18 digits."""

MAX_SAVE_SECONDS = 30 * 24 * 3600.0
SaveSeconds = Annotated[float, Field(ge=0.0, le=MAX_SAVE_SECONDS)]
"""How long writing a checkpoint took, in seconds (at most 30 days: a finite, sane bound)."""


class CheckpointSavedV2Payload(Payload):
    """The v2 payload: size in bytes, optional epoch and explicit id, no save time."""

    run_id: RunKey
    step: Step
    epoch: Count | None = None
    checkpoint_id: CheckpointId | None = None
    uri: StorageUri
    checksum: Checksum | None = None
    size_bytes: Count | None = None
    format: Label | None = None
    metrics: JsonMap = Field(default_factory=dict)

    def subject(self, project: str) -> str:
        return self.checkpoint_id or checkpoint_id(self.run_id, self.step)


class CheckpointSavedPayload(CheckpointSavedV2Payload):
    """A checkpoint was written.

    Subject: ``checkpoint_id`` when the producer names checkpoints itself, else
    ``checkpoint:<run_id>/<step>``.
    """

    # The v2 fields, then what v3 added: the save cost of `provgraph advise-checkpoints`.
    save_seconds: SaveSeconds | None = None


class CheckpointSaved(Event):
    """``checkpoint.saved`` v3 (current): v2 and how long the save took (`save_seconds`)."""

    event_type: Literal["checkpoint.saved"] = "checkpoint.saved"
    schema_version: Literal[3] = 3
    payload: CheckpointSavedPayload


class CheckpointSavedV2(Event):
    """``checkpoint.saved`` v2 (historical): still readable, upcast to v3 when read."""

    event_type: Literal["checkpoint.saved"] = "checkpoint.saved"
    schema_version: Literal[2] = 2
    payload: CheckpointSavedV2Payload


def upcast_checkpoint_saved_v2(event: dict[str, Any]) -> dict[str, Any]:
    """v2 -> v3: the same payload; the save time stays unknown."""
    return {**event, "schema_version": 3}


class CheckpointSavedV1Payload(Payload):
    """The v1 payload: size in MiB as a float, no epoch, no explicit id."""

    run_id: RunKey
    step: Step
    uri: StorageUri
    checksum: Checksum | None = None
    # Bounded so that the upcast size in bytes fits in 64 bits.
    size_mb: float | None = Field(default=None, ge=0, le=INT64_MAX // MIB)
    metrics: JsonMap = Field(default_factory=dict)

    def subject(self, project: str) -> str:
        return checkpoint_id(self.run_id, self.step)


class CheckpointSavedV1(Event):
    """``checkpoint.saved`` v1 (historical): still readable, upcast to v2 when read."""

    event_type: Literal["checkpoint.saved"] = "checkpoint.saved"
    schema_version: Literal[1] = 1
    payload: CheckpointSavedV1Payload


def upcast_checkpoint_saved_v1(event: dict[str, Any]) -> dict[str, Any]:
    """v1 -> v2: ``size_mb`` (MiB, float) becomes ``size_bytes`` (int); epoch stays unknown."""
    payload = dict(event["payload"])
    size_mb = payload.pop("size_mb", None)
    if size_mb is not None:
        payload["size_bytes"] = round(size_mb * MIB)
    return {**event, "schema_version": 2, "payload": payload}


class CheckpointDeletedPayload(Payload):
    """A checkpoint's files were deleted. Subject: the checkpoint id."""

    checkpoint: CheckpointId
    reason: Text | None = None

    def subject(self, project: str) -> str:
        return self.checkpoint


class CheckpointDeleted(Event):
    """``checkpoint.deleted`` v1."""

    event_type: Literal["checkpoint.deleted"] = "checkpoint.deleted"
    schema_version: Literal[1] = 1
    payload: CheckpointDeletedPayload


class CheckpointEvaluatedPayload(Payload):
    """An evaluation of a checkpoint on an evaluation set, registering no model version.

    The fields of ``model.version.evaluated`` with ``checkpoint`` in place of
    ``model_version``. Subject: ``evaluation:<evaluation_id>``.
    """

    evaluation_id: Uuid
    checkpoint: CheckpointId
    suite: Text
    suite_version: Label | None = None
    dataset_versions: tuple[DatasetVersionId, ...] = ()
    run: RunId | None = None
    metrics: JsonMap = Field(default_factory=dict)
    passed: bool

    def subject(self, project: str) -> str:
        return evaluation_id(self.evaluation_id)


class CheckpointEvaluated(Event):
    """``checkpoint.evaluated`` v1."""

    event_type: Literal["checkpoint.evaluated"] = "checkpoint.evaluated"
    schema_version: Literal[1] = 1
    payload: CheckpointEvaluatedPayload
