"""Validation errors: one per problem, with the field path and a clear reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from provgraph.schemas import (
    MAX_BATCH_EVENTS,
    MAX_EVENT_BYTES,
    MAX_METRIC_POINTS,
    BatchTooLargeError,
    ContractError,
    ErrorCode,
    EventTooLargeError,
    EventValidationError,
    MalformedEventError,
    RunStarted,
    SubjectMismatchError,
    kafka_key,
    parse_event,
    validate_batch,
)
from provgraph.schemas.events.experiment import RunStartedPayload

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"
SHA = "sha256:" + "ab" * 32


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    return data


def errors_of(raw: object) -> list[tuple[str, ErrorCode]]:
    _, errors = validate_batch([raw])  # type: ignore[list-item]
    return [(e.path, e.code) for e in errors]


def test_accepts_dict_bytes_and_str_alike() -> None:
    raw = example("run.started")
    by_dict = parse_event(raw)
    assert parse_event(json.dumps(raw)) == by_dict
    assert parse_event(json.dumps(raw).encode()) == by_dict


def test_batch_reports_index_path_and_reason() -> None:
    good = example("run.started")
    bad = example("run.started")
    bad["payload"]["inputs"][0]["role"] = "training"
    del bad["actor"]
    bad["payload"]["run_number"] = "3"
    events, errors = validate_batch([good, bad, good])
    assert len(events) == 2
    found = {(e.index, e.path, e.code) for e in errors}
    assert found == {
        (1, "payload.inputs[0].role", ErrorCode.INVALID_VALUE),
        (1, "actor", ErrorCode.MISSING_FIELD),
        (1, "payload.run_number", ErrorCode.WRONG_TYPE),
    }
    role_error = next(e for e in errors if e.path.endswith("role"))
    assert "'train', 'validation', 'test' or 'eval'" in role_error.reason
    assert str(role_error).startswith("event[1] payload.inputs[0].role:")


def test_missing_field_message() -> None:
    raw = example("run.completed.v1")  # v1 required the conclusion (v2 does not)
    del raw["payload"]["conclusion"]
    with pytest.raises(EventValidationError) as caught:
        parse_event(raw)
    (error,) = caught.value.errors
    assert (error.path, error.code, error.reason) == (
        "payload.conclusion",
        ErrorCode.MISSING_FIELD,
        "required field is missing",
    )


def test_wrong_type_is_strict_on_the_wire() -> None:
    raw = example("checkpoint.saved")
    raw["payload"]["step"] = "12000"
    assert errors_of(raw) == [("payload.step", ErrorCode.WRONG_TYPE)]


def test_unknown_field_is_rejected() -> None:
    raw = example("run.started")
    raw["payload"]["lr"] = 0.1
    raw["extra"] = 1
    assert set(errors_of(raw)) == {
        ("payload.lr", ErrorCode.EXTRA_FIELD),
        ("extra", ErrorCode.EXTRA_FIELD),
    }


def test_envelope_type_and_version_problems() -> None:
    assert errors_of({"schema_version": 1}) == [("event_type", ErrorCode.MISSING_FIELD)]
    assert errors_of({"event_type": "run.started", "schema_version": "1"}) == [
        ("schema_version", ErrorCode.WRONG_TYPE)
    ]
    assert errors_of({"event_type": "run.sarted", "schema_version": 1}) == [
        ("event_type", ErrorCode.UNKNOWN_EVENT_TYPE)
    ]
    assert errors_of({"event_type": "run.started", "schema_version": 9}) == [
        ("schema_version", ErrorCode.FUTURE_SCHEMA_VERSION)
    ]


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe", "null"])
def test_malformed_input(raw: bytes | str) -> None:
    with pytest.raises(MalformedEventError):
        parse_event(raw)


def test_oversized_event_is_refused_before_parsing() -> None:
    raw = example("run.started")
    raw["payload"]["params"] = {"blob": "x" * MAX_EVENT_BYTES}
    with pytest.raises(EventTooLargeError, match="over MAX_EVENT_BYTES=262144"):
        parse_event(raw)
    assert errors_of(raw) == [("", ErrorCode.TOO_LARGE)]


def test_batch_size_limit() -> None:
    assert MAX_BATCH_EVENTS == 1000
    with pytest.raises(BatchTooLargeError, match="more than MAX_BATCH_EVENTS=1000"):
        validate_batch([example("run.started")] * (MAX_BATCH_EVENTS + 1))


def test_metric_points_limit() -> None:
    raw = example("run.metrics.logged")
    point = {"name": "loss", "step": 1, "value": 1.0}
    raw["payload"]["points"] = [point] * (MAX_METRIC_POINTS + 1)
    assert errors_of(raw) == [("payload.points", ErrorCode.INVALID_VALUE)]


def test_subject_must_match_payload() -> None:
    raw = example("checkpoint.saved")
    raw["subject"] = "checkpoint:other/1"
    with pytest.raises(SubjectMismatchError, match="does not match the id the payload implies"):
        parse_event(raw)


def test_subject_must_belong_to_the_event_project() -> None:
    raw = example("entity.deleted")
    raw["payload"]["entity"] = raw["subject"] = "dataset:other-team/x@v1"
    with pytest.raises(SubjectMismatchError, match="belongs to project 'other-team'"):
        parse_event(raw)


def test_explicit_checkpoint_id_becomes_the_subject() -> None:
    raw = example("checkpoint.saved")
    raw["payload"]["checkpoint_id"] = raw["subject"] = "checkpoint:final-weights"
    assert parse_event(raw).subject == "checkpoint:final-weights"


def test_occurred_at_is_normalised_to_utc() -> None:
    raw = example("run.started") | {"occurred_at": "2024-05-01T14:00:00.25+02:00"}
    event = parse_event(raw)
    assert event.occurred_at == datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)
    assert b'"occurred_at":"2024-05-01T12:00:00.250000Z"' in event.to_json_bytes()


@pytest.mark.parametrize("stamp", ["2024-05-01T12:00:00", "2024-05-01 12:00:00Z", "1714564800"])
def test_timestamps_need_rfc3339_with_timezone(stamp: str) -> None:
    raw = example("run.started") | {"occurred_at": stamp}
    assert errors_of(raw) == [("occurred_at", ErrorCode.INVALID_VALUE)]


def test_naive_datetime_refused_from_python() -> None:
    payload = RunStartedPayload(run_id="r1")
    with pytest.raises(ValidationError, match="has no timezone"):
        RunStarted.create(
            project="p", producer="urn:test", actor="me", payload=payload,
            occurred_at=datetime(2024, 1, 1),
        )  # fmt: skip


@pytest.mark.parametrize(
    ("checksum", "ok"),
    [
        (SHA, True),
        ("sha1:" + "a" * 40, True),
        ("sha512:" + "a" * 128, True),
        ("md5:" + "a" * 32, True),
        ("blake3:" + "a" * 64, True),
        ("xxh64:" + "a" * 16, True),
        ("sha256:" + "A" * 64, False),
        ("sha256:" + "a" * 63, False),
        ("crc32:deadbeef", False),
        ("a" * 64, False),
    ],
)
def test_checksum_format(checksum: str, ok: bool) -> None:
    raw = example("checkpoint.saved")
    raw["payload"]["checksum"] = checksum
    assert errors_of(raw) == ([] if ok else [("payload.checksum", ErrorCode.INVALID_VALUE)])


@pytest.mark.parametrize(
    ("uri", "ok"),
    [
        ("s3://b/k", True),
        ("gs://b/k", True),
        ("file:///data/x", True),
        ("hdfs://nn:8020/x", True),
        ("https://host/x", True),
        ("az://container/x", True),
        ("/data/x", False),
        ("data/x", False),
        ("s3:/b", False),
    ],
)
def test_storage_uri_needs_a_scheme(uri: str, ok: bool) -> None:
    raw = example("checkpoint.saved")
    raw["payload"]["uri"] = uri
    assert errors_of(raw) == ([] if ok else [("payload.uri", ErrorCode.INVALID_VALUE)])


@pytest.mark.parametrize(
    ("before", "after", "ok"),
    [
        ("candidate", "approved", True),
        ("approved", "delivered", True),
        ("delivered", "retired", True),
        ("candidate", "rejected", True),
        ("delivered", "approved", False),
        ("retired", "delivered", False),
        ("rejected", "approved", False),
    ],
)
def test_model_status_only_moves_forward(before: str, after: str, ok: bool) -> None:
    raw = example("model.version.status.changed")
    raw["payload"] |= {"from_status": before, "to_status": after}
    assert errors_of(raw) == ([] if ok else [("payload", ErrorCode.INVALID_VALUE)])


def test_create_derives_subject_and_key() -> None:
    payload = RunStartedPayload(run_id="r-7", params={"lr": 0.1})
    event = RunStarted.create(
        project="llm", producer="urn:provgraph:test", actor="ci", payload=payload,
        occurred_at=datetime(2024, 1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    )  # fmt: skip
    assert event.subject == "run:r-7"
    assert kafka_key(event) == event.kafka_key() == b"run:r-7"
    assert event.occurred_at == datetime(2024, 1, 1, tzinfo=UTC)
    assert parse_event(event.to_json_bytes()) == event


def test_models_are_frozen() -> None:
    event = parse_event(example("run.started"))
    with pytest.raises(ValidationError):
        event.actor = "someone-else"  # type: ignore[misc]


def test_every_error_is_a_contract_error() -> None:
    for exc in (EventValidationError, BatchTooLargeError, MalformedEventError):
        assert issubclass(exc, ContractError)
