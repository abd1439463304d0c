"""The data side of the benchmark workload: raw dataset version chains, cleaned versions
derived from them behind quality gates (a failed gate is re-cleaned), a weighted mix and an
evaluation set."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from provgraph.schemas import (
    DatasetRegistered,
    DatasetVersionCreated,
    Event,
    Payload,
    dataset_version_id,
)
from provgraph.schemas.events.data import (
    CleaningKind,
    CleaningRule,
    DatasetRegisteredPayload,
    DatasetVersionCreatedPayload,
    DataSource,
    Derivation,
    QualityCheck,
    QualityGates,
)


class Emitting(Protocol):
    def emit_for(self, project: str) -> Callable[[type[Event], Payload], None]: ...

    def digest(self, text: str) -> str: ...


class Corpus:
    """Builds one project's datasets; `build` returns (training mix, evaluation set) ids."""

    def __init__(
        self, stream: Emitting, rng: random.Random, raw: int, versions: int, gate_fail: float
    ) -> None:
        self.stream, self.rng = stream, rng
        self.raw, self.versions, self.gate_fail = raw, versions, gate_fail

    def build(self, project: str) -> tuple[str, str]:
        cleaned = [self._cleaned(project, f"web-{d}") for d in range(self.raw)]
        weights = [round(1 / len(cleaned), 4)] * len(cleaned)
        mix = self._version(
            project,
            "pretrain-mix",
            "v1",
            derived_from=tuple(
                Derivation(dataset_version=c, transform="mix", weight=w)
                for c, w in zip(cleaned, weights, strict=True)
            ),
            quality_gates=QualityGates(
                mix_ratio={c.rsplit("/", 1)[1]: w for c, w in zip(cleaned, weights, strict=True)}
            ),
        )
        evaluation = self._version(project, "eval-suite", "2025.1", source=self._source("eval"))
        return mix, evaluation

    def _cleaned(self, project: str, name: str) -> str:
        raw = ""
        for v in range(1, self.versions + 1):
            previous = f"v{v - 1}" if v > 1 else None
            raw = self._version(
                project, name, f"v{v}", previous_version=previous, source=self._source(name)
            )
        rules = (
            CleaningRule(kind=CleaningKind.DEDUP, name="minhash", params={"threshold": 0.8}),
            CleaningRule(kind=CleaningKind.FILTER, name="lang", params={"keep": ["en", "de"]}),
        )
        attempt, passed = 0, False
        clean = ""
        while not passed:
            attempt += 1
            passed = attempt > 1 or self.rng.random() >= self.gate_fail
            gates = QualityGates(
                dedup_rate=round(self.rng.uniform(0.05, 0.3), 4),
                checks=(QualityCheck(name="toxicity<0.01", passed=passed, value=attempt),),
            )
            clean = self._version(
                project,
                f"{name}-clean",
                f"c{attempt}",
                derived_from=(Derivation(dataset_version=raw, transform="dedup+filter"),),
                cleaning_rules=rules,
                quality_gates=gates,
                previous_version=f"c{attempt - 1}" if attempt > 1 else None,
            )
        return clean

    def _source(self, name: str) -> DataSource:
        return DataSource(
            uri=f"https://crawl.example/{name}", obtained_by="crawler", licence="cc-by"
        )

    def _version(self, project: str, name: str, version: str, **fields: object) -> str:
        emit = self.stream.emit_for(project)
        if fields.get("previous_version") is None:
            emit(DatasetRegistered, DatasetRegisteredPayload(name=name, owner="data-team"))
        payload = DatasetVersionCreatedPayload.model_validate(
            {
                "name": name,
                "version": version,
                "storage_uri": f"s3://corpus/{project}/{name}/{version}",
                "checksum": self.stream.digest(name + version),
                "record_count": self.rng.randrange(10**6, 10**8),
                **{k: v for k, v in fields.items() if v is not None},
            }
        )
        emit(DatasetVersionCreated, payload)
        return dataset_version_id(project, name, version)
