"""Schema evolution: old versions are upcast when read; future versions are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from provgraph.schemas import (
    REGISTRY,
    CheckpointSaved,
    CheckpointSavedV1,
    ContractError,
    FutureSchemaVersionError,
    Registry,
    RegistryError,
    UnknownEventTypeError,
    parse_event,
)
from provgraph.schemas.events import RunStarted
from provgraph.schemas.registry import build_registry

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"


def _v1_checkpoint() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "checkpoint.saved.v1.json").read_text())
    return data


def test_v1_checkpoint_is_read_as_the_current_version() -> None:
    raw = _v1_checkpoint()
    event = parse_event(raw)
    assert isinstance(event, CheckpointSaved)
    assert event.schema_version == 3
    assert event.payload.size_bytes == round(raw["payload"]["size_mb"] * 1024 * 1024)
    assert event.payload.epoch is None
    assert str(event.event_id) == raw["event_id"]
    assert event.subject == raw["subject"]


def test_v1_without_size_upcasts_cleanly() -> None:
    raw = _v1_checkpoint()
    del raw["payload"]["size_mb"]
    assert parse_event(raw).payload.size_bytes is None  # type: ignore[attr-defined]


def test_v2_checkpoint_is_read_as_v3_without_a_save_time() -> None:
    raw = json.loads((EXAMPLES / "checkpoint.saved.v2.json").read_text())
    event = parse_event(raw)
    assert isinstance(event, CheckpointSaved)
    assert (event.schema_version, event.payload.save_seconds) == (3, None)
    assert event.payload.size_bytes == raw["payload"]["size_bytes"]
    current = json.loads((EXAMPLES / "checkpoint.saved.json").read_text())
    assert parse_event(current).payload.save_seconds == 42.5  # type: ignore[attr-defined]


def test_registry_knows_every_version_and_writes_the_newest() -> None:
    assert REGISTRY.versions("checkpoint.saved") == [1, 2, 3]
    assert REGISTRY.current_version("checkpoint.saved") == 3
    assert REGISTRY.resolve("checkpoint.saved", 1) is CheckpointSavedV1
    assert CheckpointSaved in REGISTRY.current_models()
    assert CheckpointSavedV1 not in REGISTRY.current_models()


def test_future_schema_version_is_refused_clearly() -> None:
    raw = _v1_checkpoint() | {"schema_version": 4}
    with pytest.raises(FutureSchemaVersionError) as caught:
        parse_event(raw)
    assert str(caught.value) == (
        "schema_version: event_type checkpoint.saved schema_version 4 is newer than this "
        "reader (max 3): upgrade provgraph"
    )


def test_unknown_event_type_lists_close_matches() -> None:
    with pytest.raises(UnknownEventTypeError, match=r"did you mean checkpoint\.saved"):
        REGISTRY.resolve("checkpoint.save", 1)


def test_unknown_event_type_without_close_match_lists_all() -> None:
    with pytest.raises(UnknownEventTypeError, match=r"known: access\.granted"):
        REGISTRY.resolve("zzz.qqq", 1)


def test_duplicate_registration_is_refused() -> None:
    registry = Registry()
    registry.register(RunStarted)
    with pytest.raises(RegistryError, match="already registered"):
        registry.register(RunStarted)


def test_missing_upcaster_is_detected() -> None:
    with pytest.raises(RegistryError, match=r"checkpoint\.saved v1 has no upcaster"):
        build_registry([CheckpointSavedV1, CheckpointSaved], {})


def test_version_gap_is_reported() -> None:
    registry = build_registry([CheckpointSaved], {})
    with pytest.raises(Exception, match=r"has no schema_version 1 \(known: \[3\]\)"):
        registry.resolve("checkpoint.saved", 1)


def test_v1_run_started_is_read_as_v2_without_a_pilot() -> None:
    raw = json.loads((EXAMPLES / "run.started.v1.json").read_text())
    event = parse_event(raw)
    assert isinstance(event, RunStarted)
    assert (event.schema_version, event.payload.scaled_from) == (2, None)
    assert event.payload.resources is not None and event.payload.resources.num_nodes == 4
    assert REGISTRY.versions("run.started") == [1, 2]
    current = parse_event(json.loads((EXAMPLES / "run.started.json").read_text()))
    assert current.payload.scaled_from == "run:7c2e41aa-1b5d-4f0e-8a33-9d1f2b6c4e71"  # type: ignore[attr-defined]


def test_a_run_cannot_be_its_own_pilot() -> None:
    raw = json.loads((EXAMPLES / "run.started.json").read_text())
    raw["payload"]["scaled_from"] = raw["subject"]
    with pytest.raises(ContractError, match=r"cannot be its own pilot"):
        parse_event(raw)
