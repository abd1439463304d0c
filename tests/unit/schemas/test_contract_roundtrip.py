"""Property: any event built from the models survives JSON and parsing unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from provgraph.schemas import Event, Payload, dataset_version_id, parse_event
from provgraph.schemas.events import (
    CheckpointSaved,
    DatasetVersionCreated,
    DeploymentCreated,
    RunMetricsLogged,
    RunStarted,
)
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload
from provgraph.schemas.events.data import CleaningRule, DatasetVersionCreatedPayload
from provgraph.schemas.events.deployment import DeploymentCreatedPayload, ServedModel
from provgraph.schemas.events.experiment import CodeRef, RunInput, RunStartedPayload
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload
from provgraph.schemas.ids import NAME_RE, PROJECT_RE, RUN_KEY_RE, VERSION_RE

pytestmark = pytest.mark.unit

projects = st.from_regex(f"^{PROJECT_RE}$", fullmatch=True)
names = st.from_regex(f"^{NAME_RE}$", fullmatch=True)
versions = st.from_regex(f"^{VERSION_RE}$", fullmatch=True)
run_keys = st.uuids().map(str) | st.from_regex(f"^{RUN_KEY_RE}$", fullmatch=True)
floats = st.floats(allow_nan=False, allow_infinity=False)
offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
stamps = st.datetimes(datetime(1971, 1, 1), datetime(2099, 1, 1), timezones=offsets)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | floats | st.text()
# Map keys as the contract allows them: 1..256 characters, no control characters.
keys = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=20)
json_values: st.SearchStrategy[JsonValue] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)
json_maps = st.dictionaries(keys, json_values, max_size=4)


def dataset_versions(project: str) -> st.SearchStrategy[str]:
    return st.builds(dataset_version_id, st.just(project), names, versions)


run_started = st.builds(
    RunStartedPayload,
    run_id=run_keys,
    params=json_maps,
    code=st.none() | st.builds(CodeRef, repo=st.text(min_size=1), commit=st.just("abcdef1")),
    inputs=st.lists(
        st.builds(RunInput, dataset_version=dataset_versions("p"), role=st.sampled_from(
            ["train", "validation", "test", "eval"]
        )),
        max_size=3,
    ).map(tuple),
)  # fmt: skip
metrics = st.builds(
    RunMetricsLoggedPayload,
    run_id=run_keys,
    points=st.lists(
        st.builds(MetricPoint, name=names, step=st.integers(0, 10**9), value=floats,
                  timestamp=st.none() | stamps),
        min_size=1, max_size=5,
    ).map(tuple),
)  # fmt: skip
checkpoints = st.builds(
    CheckpointSavedPayload,
    run_id=run_keys,
    step=st.integers(0, 10**12),
    epoch=st.none() | st.integers(0, 1000),
    uri=names.map(lambda n: f"s3://bucket/{n}"),
    size_bytes=st.none() | st.integers(0, 2**62),
    metrics=json_maps,
)
datasets = st.builds(
    DatasetVersionCreatedPayload,
    name=names,
    version=versions,
    storage_uri=names.map(lambda n: f"gs://data/{n}"),
    cleaning_rules=st.lists(
        st.builds(CleaningRule, kind=st.sampled_from(["dedup", "filter", "normalize", "other"]),
                  name=st.text(min_size=1), params=json_maps),
        max_size=2,
    ).map(tuple),
    record_count=st.none() | st.integers(0, 10**12),
)  # fmt: skip
deployments = st.builds(
    DeploymentCreatedPayload,
    name=names,
    endpoint=st.just("https://api.example.com/v1"),
    environment=st.sampled_from(["production", "staging"]),
    serves=st.tuples(st.builds(ServedModel, model_version=st.just("model:p/m@1"),
                               traffic_share=st.floats(0, 1))),
)  # fmt: skip

CASES: list[tuple[type[Event], st.SearchStrategy[Payload]]] = [
    (RunStarted, run_started),
    (RunMetricsLogged, metrics),
    (CheckpointSaved, checkpoints),
    (DatasetVersionCreated, datasets),
    (DeploymentCreated, deployments),
]


@st.composite
def events(draw: st.DrawFn) -> Event:
    model, payloads = draw(st.sampled_from(CASES))
    project = "p" if model is DeploymentCreated else draw(projects)
    return model.create(
        project=project,
        producer="https://provgraph.dev/sdk/python/0.1.0",
        actor=draw(st.text(min_size=1, max_size=30)),
        payload=draw(payloads),
        occurred_at=draw(stamps),
        event_id=draw(st.uuids()),
        correlation_id=draw(st.none() | st.uuids()),
    )


@settings(max_examples=200, deadline=None)
@given(events())
def test_json_round_trip_is_lossless(event: Event) -> None:
    wire = event.to_json_bytes()
    parsed = parse_event(wire)
    assert parsed == event
    assert type(parsed) is type(event)
    assert parsed.to_json_bytes() == wire
    assert parsed.kafka_key() == event.subject.encode()
    assert parsed.occurred_at.tzinfo is UTC
