"""The limits of the store in the contract: the models and the generated JSON Schema refuse the
same values (64-bit integers, JSON depth, key count and text, timestamps within 1970..9999),
and both accept the values at the bound."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_contract_examples import schema_errors

from provgraph.schemas import ContractError, IdKind, InvalidIdError, parse_event, parse_id
from provgraph.schemas.envelope import TIMESTAMP_RE
from provgraph.schemas.limits import (
    INT64_MAX,
    INT64_MIN,
    MAX_JSON_DEPTH,
    MAX_JSON_KEYS,
    MAX_KEY_CHARS,
)

pytestmark = pytest.mark.unit

VALID = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "valid"
Edit = Callable[[dict[str, Any]], None]
RUN = "0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10"  # the run of the examples


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VALID / f"{name}.json").read_text())
    return data


def edited(name: str, edit: Edit) -> dict[str, Any]:
    event = copy.deepcopy(example(name))
    edit(event)
    return event


def model_accepts(event: dict[str, Any]) -> bool:
    # As bytes, the way Kafka and HTTP hand events over.
    try:
        parse_event(json.dumps(event).encode())
    except ContractError:
        return False
    return True


def nested(levels: int, leaf: Any = 1) -> Any:
    """`leaf` inside `levels` arrays and objects, alternating."""
    value = leaf
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def put(path: str, value: Any) -> Edit:
    """An edit setting `path` (dots; ``[0]`` for list items) of the event to `value`."""

    def edit(event: dict[str, Any]) -> None:
        *parents, last = re.findall(r"[^.\[\]]+", path)
        node: Any = event
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return edit


def both(*edits: Edit) -> Edit:
    """The edits, one after the other."""

    def edit(event: dict[str, Any]) -> None:
        for one in edits:
            one(event)

    return edit


def free(event_type: str, field: str, value: Any) -> tuple[str, Edit]:
    """An entry of `field` (a free-form map of the payload) set to `value`."""
    return event_type, put(f"payload.{field}.x", value)


BEYOND = {
    "int over 64 bits in params": free("run.started", "params", INT64_MAX + 1),
    "int under 64 bits in params": free("run.started", "params", INT64_MIN - 1),
    "10**400 in final metrics": free("run.completed", "final_metrics", 10**400),
    "int deep in checkpoint metrics": free("checkpoint.saved", "metrics", [{"n": 2**64}]),
    "int in OpenLineage facets": ("openlineage.run_event", put("payload.event.run.x", 2**70)),
    "int in system config": free("environment.snapshot.recorded", "system", -(2**80)),
    "int in a cleaning rule": (
        "dataset.version.created",
        put("payload.cleaning_rules[0].params.min", 2**63),
    ),
    "a quality check's value": (
        "dataset.version.created",
        put("payload.quality_gates.checks[0].value", 2**63),
    ),
    "metric step": ("run.metrics.logged", put("payload.points[0].step", 2**63)),
    "record count": ("dataset.version.created", put("payload.record_count", 2**64)),
    "run number": ("run.started", put("payload.run_number", 2**63)),
    "parallelism degree": ("run.started", put("payload.resources.parallelism.data", 2**63)),
    "checkpoint step beyond its id": ("checkpoint.saved", put("payload.step", 10**18)),
    "depth in params": free("run.started", "params", nested(MAX_JSON_DEPTH)),
    "depth in metrics": free("model.version.evaluated", "metrics", nested(MAX_JSON_DEPTH + 5)),
    "depth in OpenLineage": ("openlineage.job_event", put("payload.event.job.x", nested(40))),
    "too many keys in params": free("run.started", "params", {f"k{i}": i for i in range(1001)}),
    "too many keys at the top": (
        "deployment.feedback.recorded",
        put("payload.metrics", {f"m{i}": 1 for i in range(MAX_JSON_KEYS + 1)}),
    ),
    "too many mix ratios": (
        "dataset.version.created",
        put("payload.quality_gates.mix_ratio", {f"s{i}": 0 for i in range(MAX_JSON_KEYS + 1)}),
    ),
    "key too long": ("run.started", put("payload.params." + "k" * (MAX_KEY_CHARS + 1), 1)),
    "empty key": ("run.started", put("payload.params", {"": 1})),
    "key with a newline": ("run.completed", put("payload.final_metrics", {"a\nb": 1})),
    "key with NUL": ("environment.snapshot.recorded", put("payload.system", {"a\x00": 1})),
    "package name with DEL": ("environment.snapshot.recorded", put("payload.packages.a\x7f", "1")),
    "metric name with a tab": ("run.metrics.logged", put("payload.points[0].name", "a\tb")),
    "occurred_at after 9999 in UTC": (
        "run.started",
        put("occurred_at", "9999-12-31T23:59:59-01:00"),
    ),
    "occurred_at before 1970 in UTC": (
        "run.started",
        put("occurred_at", "1970-01-01T00:30:00+01:00"),
    ),
    "written in 1969, though 1970 in UTC": (
        "run.started",
        put("occurred_at", "1969-12-31T23:00:00-01:00"),
    ),
    "year 1": ("run.completed", put("occurred_at", "0001-01-01T00:00:00+01:00")),
    "year 1969": ("run.completed", put("occurred_at", "1969-12-31T23:59:59.999999Z")),
    "grant expiry after 9999": (
        "access.granted",
        put("payload.expires_at", "9999-12-31T23:00:00-01:00"),
    ),
    "metric timestamp before 1970": (
        "run.metrics.logged",
        put("payload.points[0].timestamp", "1965-06-01T00:00:00Z"),
    ),
    "run name of 257 characters": ("run.started", put("payload.name", "n" * 257)),
    "tag of 257 characters": ("dataset.registered", put("payload.tags", ["t" * 257])),
    "producer of 4097 characters": ("run.started", put("producer", "https://x/" + "p" * 4087)),
    "OpenLineage job name of 1025 characters": (
        "openlineage.run_event",
        put("payload.event.job.name", "j" * 1025),
    ),
    "OpenLineage job without a name": ("openlineage.job_event", put("payload.event.job", {})),
    "float 1e999 (JSON infinity) in params": free("run.started", "params", float("inf")),
}

AT_THE_BOUND = {
    "int64 max in params": free("run.started", "params", INT64_MAX),
    "int64 min in metrics": free("model.version.evaluated", "metrics", INT64_MIN),
    "int64 max record count": ("dataset.version.created", put("payload.record_count", INT64_MAX)),
    "int64 max metric step": ("run.metrics.logged", put("payload.points[0].step", INT64_MAX)),
    "largest checkpoint step": (
        "checkpoint.saved",
        both(put("payload.step", 10**18 - 1), put("subject", f"checkpoint:{RUN}/{10**18 - 1}")),
    ),
    "depth in params": free("run.started", "params", nested(MAX_JSON_DEPTH - 1)),
    "1000 keys": free("run.started", "params", {f"k{i}": i for i in range(MAX_JSON_KEYS)}),
    "key of 256 characters": ("run.started", put("payload.params." + "k" * MAX_KEY_CHARS, 1)),
    "unicode key": ("run.completed", put("payload.final_metrics", {"ü/λ.loss 1": 1.5})),
    "first instant": ("run.started", put("occurred_at", "1970-01-01T00:00:00Z")),
    "lowercase t and z (RFC 3339)": ("run.started", put("occurred_at", "2024-05-01t12:00:00z")),
    "first day, west of UTC": ("run.started", put("occurred_at", "1970-01-01T00:00:00-05:00")),
    "second day, east of UTC": ("run.started", put("occurred_at", "1970-01-02T00:30:00+23:59")),
    "last instant": ("run.started", put("occurred_at", "9999-12-31T23:59:59.999999Z")),
    "last day, east of UTC": ("run.started", put("occurred_at", "9999-12-31T23:59:59+01:00")),
    "second to last day, west": ("run.started", put("occurred_at", "9999-12-30T23:00:00-23:00")),
    "run name of 256 characters": ("run.started", put("payload.name", "n" * 256)),
}


@pytest.mark.parametrize(("event_type", "edit"), BEYOND.values(), ids=BEYOND.keys())
def test_values_the_store_cannot_hold_are_refused_by_models_and_schema(
    event_type: str, edit: Edit
) -> None:
    event = edited(event_type, edit)
    if event != json.loads(json.dumps(event)):  # infinity has no JSON spelling: as text
        raw = json.dumps(event).replace("Infinity", "1e999").encode()
        with pytest.raises(ContractError):
            parse_event(raw)
    else:
        assert not model_accepts(event)
    assert schema_errors(event), "the JSON Schema accepts it"


@pytest.mark.parametrize(("event_type", "edit"), AT_THE_BOUND.values(), ids=AT_THE_BOUND.keys())
def test_values_at_the_bound_are_accepted_by_models_and_schema(event_type: str, edit: Edit) -> None:
    event = edited(event_type, edit)
    assert model_accepts(event)
    assert schema_errors(event) == []


def test_errors_name_the_field_and_where_inside_it() -> None:
    event = edited("run.started", put("payload.params.lr_schedule.steps", [1, 2**64]))
    with pytest.raises(ContractError) as raised:
        parse_event(event)
    assert "payload.params: integer 18446744073709551616 at lr_schedule.steps[1]" in str(
        raised.value
    )
    assert "outside signed 64 bits" in str(raised.value)


def test_out_of_range_timestamps_quote_the_value_as_written() -> None:
    event = edited("run.started", put("occurred_at", "9999-12-31T23:59:59-01:00"))
    expected = (
        "occurred_at: timestamp '9999-12-31T23:59:59-01:00' is out of range: "
        "in UTC it must lie between 1970-01-01T00:00:00Z"
    )
    with pytest.raises(ContractError, match=re.escape(expected)):
        parse_event(event)


def test_a_float_beyond_64_bits_is_a_float_not_an_integer() -> None:
    # 1e20 is a float to the service (stored as a double); JSON Schema compares values, so it
    # reads it as the whole number 10**20 and refuses it: the documented difference.
    event = edited("run.completed", put("payload.final_metrics.flops", 3.2e23))
    assert model_accepts(event)
    assert schema_errors(event)


def test_json_nested_beyond_the_parser_is_malformed_not_a_crash() -> None:
    raw = json.dumps(example("run.started")).replace('"epochs": 1', '"epochs": ' + "[" * 100_000)
    with pytest.raises(ContractError, match="nested too deeply"):
        parse_event(raw.encode())
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ContractError, match="nested too deeply"):
        parse_event(edited("run.started", put("payload.params.deep", deep)))


def test_an_integer_of_thousands_of_digits_is_malformed_not_a_crash() -> None:
    raw = json.dumps(example("run.started")).replace('"epochs": 1', '"epochs": ' + "9" * 5000)
    with pytest.raises(ContractError, match="4300 digits"):
        parse_event(raw.encode())


# ---- timestamps: the pattern of the JSON Schema is the Python range check ------------------

offsets = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(lambda m: timedelta(minutes=m))
edge_days = st.sampled_from(
    [datetime(1970, 1, 1), datetime(1970, 1, 2), datetime(9999, 12, 30), datetime(9999, 12, 31)]
)
local_times = st.builds(
    lambda day, seconds: day + timedelta(seconds=seconds), edge_days, st.integers(0, 86399)
) | st.datetimes(datetime(1969, 1, 1), datetime(9999, 12, 31))


def _written(local: datetime, offset: timedelta) -> str:
    return local.replace(tzinfo=timezone(offset)).isoformat().replace("+00:00", "Z")


@settings(max_examples=400, deadline=None)
@given(local_times, offsets)
def test_timestamp_pattern_agrees_with_the_range_check(local: datetime, offset: timedelta) -> None:
    text = _written(local, offset)
    event = edited("run.started", put("occurred_at", text))
    assert model_accepts(event) == (re.fullmatch(TIMESTAMP_RE, text) is not None), text


def test_aware_datetimes_out_of_range_are_refused_when_built_in_python() -> None:
    from provgraph.schemas import RunStarted
    from provgraph.schemas.events.experiment import RunStartedPayload

    late = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-2)))
    with pytest.raises(ValueError, match="out of range"):
        RunStarted.create(
            project="p",
            producer="https://x/y",
            actor="a",
            payload=RunStartedPayload(run_id="r"),
            occurred_at=late,
        )
    assert datetime(1970, 1, 1, tzinfo=UTC)  # the first instant itself is fine (see above)


# ---- ids: a trailing newline makes no look-alike id ------------------------------------------

ONE_OF_EACH = {
    IdKind.DATASET: "dataset:p/web",
    IdKind.DATASET_VERSION: "dataset:p/web@v1",
    IdKind.RUN: "run:r-1",
    IdKind.EXPERIMENT: "experiment:p/e1",
    IdKind.CHECKPOINT: "checkpoint:r-1/100",
    IdKind.MODEL: "model:p/m",
    IdKind.MODEL_VERSION: "model:p/m@1.0",
    IdKind.ENVIRONMENT: "environment:p/sha256:ab12",
    IdKind.EVALUATION: "evaluation:0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10",
    IdKind.DEPLOYMENT: "deployment:p/chat",
    IdKind.PROJECT: "project:p",
    IdKind.JOB: "job:p/nightly",
    IdKind.PRINCIPAL: "principal:user:alice",
}


def test_every_id_kind_has_a_sample() -> None:
    assert set(ONE_OF_EACH) == set(IdKind)


@pytest.mark.parametrize("value", ONE_OF_EACH.values(), ids=[k.value for k in ONE_OF_EACH])
@pytest.mark.parametrize("suffix", ["\n", "\r\n", "\n\n", " ", "\t"])
def test_an_id_with_trailing_whitespace_is_refused(value: str, suffix: str) -> None:
    assert parse_id(value).kind in IdKind
    with pytest.raises(InvalidIdError):
        parse_id(value + suffix)


SEGMENTS = {
    "project": ("run.started", "project"),
    "run_id": ("run.completed", "payload.run_id"),
    "dataset name": ("dataset.registered", "payload.name"),
    "version": ("dataset.version.created", "payload.version"),
    "environment key": ("environment.snapshot.recorded", "payload.key"),
    "principal": ("token.issued", "payload.name"),
    "grant principal": ("access.granted", "payload.principal"),
    "token hash": ("token.issued", "payload.token_hash"),
    "commit": ("run.started", "payload.code.commit"),
    "event_type": ("run.started", "event_type"),
    "checksum": ("checkpoint.saved", "payload.checksum"),
    "storage uri": ("checkpoint.saved", "payload.uri"),
    "producer uri": ("run.started", "producer"),
    "exact version": ("environment.snapshot.recorded", "payload.python_version"),
}


@pytest.mark.parametrize(("event_type", "path"), SEGMENTS.values(), ids=SEGMENTS.keys())
def test_every_pattern_of_the_contract_refuses_a_trailing_newline(
    event_type: str, path: str
) -> None:
    event = example(event_type)
    value: Any = event
    for part in path.split("."):
        value = value[part]
    bad = edited(event_type, put(path, value + "\n"))
    assert not model_accepts(bad)
    assert schema_errors(bad)
