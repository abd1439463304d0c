"""Data archive events: datasets and their versions."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from provgraph.schemas.envelope import ContractModel, Event, Payload, Text
from provgraph.schemas.events.common import (
    Checksum,
    Count,
    JsonMap,
    JsonScalar,
    Label,
    Ratio,
    RatioMap,
    StorageUri,
    Tags,
)
from provgraph.schemas.ids import (
    DatasetVersionId,
    Name,
    RunId,
    VersionLabel,
    dataset_id,
    dataset_version_id,
)


class DatasetRegisteredPayload(Payload):
    """A dataset (the versioned thing) is registered. Subject: ``dataset:<project>/<name>``."""

    name: Name
    description: Text | None = None
    owner: Label | None = None
    modality: Label | None = None
    tags: Tags = ()

    def subject(self, project: str) -> str:
        return dataset_id(project, self.name)


class DatasetRegistered(Event):
    """``dataset.registered`` v1."""

    event_type: Literal["dataset.registered"] = "dataset.registered"
    schema_version: Literal[1] = 1
    payload: DatasetRegisteredPayload


class DataSource(ContractModel):
    """Where raw data came from and under which terms."""

    uri: StorageUri
    obtained_by: Text
    licence: Label | None = None
    compliance_note: Text | None = None


class Derivation(ContractModel):
    """One input version and the transform that produced this version from it."""

    dataset_version: DatasetVersionId
    transform: Text
    weight: Ratio | None = None


class CleaningKind(StrEnum):
    """What a cleaning rule does."""

    DEDUP = "dedup"
    FILTER = "filter"
    NORMALIZE = "normalize"
    OTHER = "other"


class CleaningRule(ContractModel):
    """A cleaning step with its parameters (thresholds, language lists, ...)."""

    kind: CleaningKind
    name: Text
    params: JsonMap = Field(default_factory=dict)


_COUNT_OR_RATIO: dict[str, Any] = {"anyOf": [{"required": ["count"]}, {"required": ["ratio"]}]}


class SplitPart(ContractModel):
    """One split, as a record count, a ratio, or both."""

    model_config = ConfigDict(json_schema_extra=_COUNT_OR_RATIO)

    count: Count | None = None
    ratio: Ratio | None = None

    @model_validator(mode="after")
    def _count_or_ratio(self) -> Self:
        if self.count is None and self.ratio is None:
            raise ValueError("a split part needs a count, a ratio, or both")
        return self


class Split(ContractModel):
    """Train / validation / test split; ratios, when given, sum to at most 1."""

    train: SplitPart
    validation: SplitPart | None = None
    test: SplitPart | None = None

    @model_validator(mode="after")
    def _ratios_fit(self) -> Self:
        parts = (self.train, self.validation, self.test)
        total = sum(p.ratio for p in parts if p is not None and p.ratio is not None)
        if total > 1.0 + 1e-9:
            raise ValueError(f"split ratios sum to {total:g}, more than 1")
        return self


class QualityCheck(ContractModel):
    """A cleanliness check with its verdict and optional measured value."""

    name: Text
    passed: bool
    value: JsonScalar = None


class QualityGates(ContractModel):
    """Quality gates measured on this version."""

    dedup_rate: Ratio | None = None
    mix_ratio: RatioMap = Field(default_factory=dict)
    checks: tuple[QualityCheck, ...] = ()


class DatasetVersionCreatedPayload(Payload):
    """A new immutable dataset version. Subject: ``dataset:<project>/<name>@<version>``."""

    name: Name
    version: VersionLabel
    storage_uri: StorageUri
    source: DataSource | None = None
    change_note: Text | None = None
    previous_version: VersionLabel | None = None
    derived_from: tuple[Derivation, ...] = ()
    produced_by_run: RunId | None = None
    cleaning_rules: tuple[CleaningRule, ...] = ()
    split: Split | None = None
    quality_gates: QualityGates | None = None
    checksum: Checksum | None = None
    fingerprint: Annotated[str, Field(min_length=1, max_length=256)] | None = None
    record_count: Count | None = None
    size_bytes: Count | None = None

    def subject(self, project: str) -> str:
        return dataset_version_id(project, self.name, self.version)


class DatasetVersionCreated(Event):
    """``dataset.version.created`` v1."""

    event_type: Literal["dataset.version.created"] = "dataset.version.created"
    schema_version: Literal[1] = 1
    payload: DatasetVersionCreatedPayload
