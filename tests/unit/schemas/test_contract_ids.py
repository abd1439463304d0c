"""Typed ids: builders, the parser and its error messages."""

from __future__ import annotations

import uuid

import pytest

from provgraph.schemas import (
    IdKind,
    InvalidIdError,
    checkpoint_id,
    dataset_id,
    dataset_version_id,
    deployment_id,
    environment_id,
    evaluation_id,
    experiment_id,
    explicit_checkpoint_id,
    model_id,
    model_version_id,
    parse_id,
    project_id,
    run_id,
)

pytestmark = pytest.mark.unit

RUN = uuid.UUID("0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10")


@pytest.mark.parametrize(
    ("built", "kind", "parts"),
    [
        (dataset_id("p", "web"), IdKind.DATASET, ("p", "web")),
        (dataset_version_id("p", "web", "v3"), IdKind.DATASET_VERSION, ("p", "web", "v3")),
        (run_id(RUN), IdKind.RUN, (str(RUN),)),
        (run_id("nightly-42"), IdKind.RUN, ("nightly-42",)),
        (experiment_id("p", "exp-17"), IdKind.EXPERIMENT, ("p", "exp-17")),
        (checkpoint_id(RUN, 1200), IdKind.CHECKPOINT, (str(RUN), "1200")),
        (explicit_checkpoint_id("final"), IdKind.CHECKPOINT, ("final",)),
        (model_id("p", "m"), IdKind.MODEL, ("p", "m")),
        (model_version_id("p", "m", "1.0.0+rc1"), IdKind.MODEL_VERSION, ("p", "m", "1.0.0+rc1")),
        (environment_id("p", "sha256:ab12"), IdKind.ENVIRONMENT, ("p", "sha256:ab12")),
        (evaluation_id(RUN), IdKind.EVALUATION, (str(RUN),)),
        (deployment_id("p", "chat"), IdKind.DEPLOYMENT, ("p", "chat")),
        (project_id("p"), IdKind.PROJECT, ("p",)),
    ],
)
def test_builders_and_parser_agree(built: str, kind: IdKind, parts: tuple[str, ...]) -> None:
    parsed = parse_id(built)
    assert parsed.kind is kind
    assert parsed.parts == parts


def test_readable_formats() -> None:
    assert dataset_version_id("llm", "web", "v3") == "dataset:llm/web@v3"
    assert checkpoint_id("r1", 500) == "checkpoint:r1/500"
    assert model_version_id("llm", "chat", "2") == "model:llm/chat@2"


def test_project_of_an_id() -> None:
    assert parse_id("dataset:llm/web@v3").project == "llm"
    assert parse_id("run:abc").project is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("no-prefix", "has no '<kind>:' prefix"),
        ("widget:p/x", "unknown id prefix 'widget'"),
        ("job:nightly", "reserved"),
        ("dataset:Proj/web", "malformed dataset id"),
        ("dataset:p/web@", "malformed dataset_version id"),
        ("checkpoint:r1/-3", "malformed checkpoint id"),
        ("evaluation:not-a-uuid", "expected evaluation:<uuid>"),
        ("run:", "malformed run id"),
    ],
)
def test_malformed_ids_are_rejected_clearly(value: str, message: str) -> None:
    with pytest.raises(InvalidIdError, match=message):
        parse_id(value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: dataset_id("Bad Project", "x"), "project 'Bad Project' is not valid"),
        (lambda: dataset_version_id("p", "x", "v 1"), "version 'v 1' is not valid"),
        (lambda: checkpoint_id("r", -1), "must be within 0..999999999999999999"),
        (lambda: checkpoint_id("r", 10**18), "must be within 0..999999999999999999"),
        (lambda: run_id("has/slash"), "run_id 'has/slash' is not valid"),
    ],
)
def test_builders_validate_segments(call: object, message: str) -> None:
    assert callable(call)
    with pytest.raises(InvalidIdError, match=message):
        call()


def test_invalid_id_error_is_a_value_error_and_a_contract_error() -> None:
    from provgraph.schemas import ContractError

    with pytest.raises(ValueError):
        parse_id("nope")
    with pytest.raises(ContractError):
        parse_id("nope")
