"""The SDK's helpers for resumes, evaluations and status changes: the exact event each emits,
and arguments the contract refuses raising `ArgumentError` (naming them) with nothing emitted."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from client_fakes import PROJECT, FakeTransport

import provgraph.client
from provgraph.client import ArgumentError, ClientError, Emitter
from provgraph.schemas import Event, parse_event

MODEL = f"model:{PROJECT}/assistant@1.0.0"
EVAL_DATA = (f"dataset:{PROJECT}/eval-suite@v1", f"dataset:{PROJECT}/heldout@v2")
EVALUATION = uuid.UUID("0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10")


@pytest.fixture()
def transport() -> FakeTransport:
    return FakeTransport()


@pytest.fixture()
def emitter(transport: FakeTransport, tmp_path: Path) -> Iterator[Emitter]:
    emitter = Emitter(transport, spool_dir=tmp_path / "spool", project=PROJECT, linger_s=0.01)
    yield emitter
    emitter.close(timeout=5)


def delivered(emitter: Emitter, transport: FakeTransport) -> list[Event]:
    assert emitter.flush(timeout=10)
    events = transport.events
    for event in events:  # every event survives the wire format and the contract
        assert parse_event(event.to_json_bytes()) == event
    return events


def payload(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = event.payload.model_dump(mode="json")
    return data


# -- resuming --------------------------------------------------------------------------------


def test_a_resumed_run_emits_run_resumed_and_then_lives_as_a_run(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.resume(
        "pretrain-7",
        from_checkpoint=1000,
        interruption_cause="node failure",
        steps_lost=120,
        resumed_at_step=1000,
    ) as run:
        run.log_metrics(1001, loss=2.5)
        checkpoint = run.checkpoint(2000, "s3://bucket/ckpt/2000")
        run.conclusion = "converged after one restart"
    events = delivered(emitter, transport)

    kinds = [e.event_type for e in events]
    assert kinds[0] == "run.resumed"
    assert "run.started" not in kinds and "environment.snapshot.recorded" not in kinds
    assert kinds[-1] == "run.completed"
    resumed = events[0]
    assert resumed.subject == "run:pretrain-7"
    assert payload(resumed) == {
        "run_id": "pretrain-7",
        "from_checkpoint": "checkpoint:pretrain-7/1000",
        "interruption_cause": "node failure",
        "steps_lost": 120,
        "resumed_at_step": 1000,
    }
    assert checkpoint == "checkpoint:pretrain-7/2000"
    assert {e.subject for e in events if e.event_type != "checkpoint.saved"} == {run.subject}
    assert {e.correlation_id for e in events} == {run.correlation_id}
    assert {e.causation_id for e in events[1:]} == {resumed.event_id}
    completed = payload(events[-1])
    assert (completed["conclusion"], completed["final_step"]) == (
        "converged after one restart",
        2000,
    )


def test_a_resumed_run_that_fails_again_emits_run_failed(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with (
        pytest.raises(RuntimeError),
        emitter.resume(
            "pretrain-7",
            from_checkpoint="checkpoint:pretrain-7-step-1000",
            interruption_cause="preempted",
            steps_lost=0,
        ),
    ):
        raise RuntimeError("out of memory")
    events = delivered(emitter, transport)
    assert [e.event_type for e in events] == ["run.resumed", "run.failed"]
    assert payload(events[0]) == {
        "run_id": "pretrain-7",
        "from_checkpoint": "checkpoint:pretrain-7-step-1000",
        "interruption_cause": "preempted",
        "steps_lost": 0,
        "resumed_at_step": None,
    }
    assert payload(events[1])["error"]["type"] == "RuntimeError"


RESUME = {"from_checkpoint": 1000, "interruption_cause": "node failure", "steps_lost": 3}


@pytest.mark.parametrize(
    ("run_id", "changes", "argument"),
    [
        ("bad run id", {}, "run_id"),
        ("r-1", {"from_checkpoint": "s3://bucket/ckpt/1000"}, "from_checkpoint"),
        ("r-1", {"from_checkpoint": -1}, "from_checkpoint"),
        ("r-1", {"interruption_cause": ""}, "interruption_cause"),
        ("r-1", {"steps_lost": -5}, "steps_lost"),
        ("r-1", {"resumed_at_step": "soon"}, "resumed_at_step"),
    ],
)
def test_a_resume_argument_the_contract_refuses_raises_and_emits_nothing(
    emitter: Emitter, transport: FakeTransport, run_id: str, changes: dict[str, Any], argument: str
) -> None:
    with pytest.raises(ArgumentError) as raised:
        emitter.resume(run_id, **(RESUME | changes))
    assert raised.value.arguments == (argument,)
    assert str(raised.value).startswith(f"resume(): argument {argument}: ")
    assert delivered(emitter, transport) == []


# -- evaluations -----------------------------------------------------------------------------


def test_evaluate_emits_model_version_evaluated(emitter: Emitter, transport: FakeTransport) -> None:
    evaluation = emitter.evaluate(
        MODEL,
        suite="safety-suite",
        suite_version="2024.05",
        datasets=list(EVAL_DATA),
        metrics={"accuracy": 0.91, "toxicity": {"rate": 0.002}},
        passed=True,
        evaluation_id=EVALUATION,
    )
    [event] = delivered(emitter, transport)
    assert event.event_type == "model.version.evaluated"
    assert event.subject == evaluation == f"evaluation:{EVALUATION}"
    assert event.project == PROJECT
    assert payload(event) == {
        "evaluation_id": str(EVALUATION),
        "model_version": MODEL,
        "suite": "safety-suite",
        "suite_version": "2024.05",
        "dataset_versions": list(EVAL_DATA),
        "run": None,
        "metrics": {"accuracy": 0.91, "toxicity": {"rate": 0.002}},
        "passed": True,
    }


def test_each_evaluation_gets_an_id_of_its_own(emitter: Emitter, transport: FakeTransport) -> None:
    first = emitter.evaluate(MODEL, suite="smoke", passed=False)
    second = emitter.evaluate(MODEL, suite="smoke", passed=False)
    assert first != second
    assert [e.subject for e in delivered(emitter, transport)] == [first, second]


def test_an_evaluation_inside_a_run_is_done_by_that_run(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, code=False) as run:
        evaluation = run.evaluate(MODEL, suite="mmlu", datasets=EVAL_DATA[:1], passed=True)
    events = delivered(emitter, transport)
    [started, evaluated, _completed] = events
    assert evaluated.event_type == "model.version.evaluated"
    assert evaluated.subject == evaluation
    assert payload(evaluated)["run"] == run.subject
    assert payload(evaluated)["dataset_versions"] == [EVAL_DATA[0]]
    assert (evaluated.correlation_id, evaluated.causation_id) == (
        run.correlation_id,
        started.event_id,
    )


EVALUATE: dict[str, Any] = {"suite": "mmlu", "passed": True}


@pytest.mark.parametrize(
    ("model_version", "changes", "argument"),
    [
        (f"model:{PROJECT}/assistant", {}, "model_version"),  # a model, not a version
        (MODEL, {"suite": ""}, "suite"),
        (MODEL, {"datasets": [EVAL_DATA[0], "heldout@v2"]}, "datasets[1]"),
        (MODEL, {"datasets": EVAL_DATA[0]}, "datasets"),  # one id, not a list of them
        (MODEL, {"run": "r-1"}, "run"),  # a run id is run:<run_id>
        (MODEL, {"evaluation_id": "eval-1"}, "evaluation_id"),
        (MODEL, {"passed": "perhaps"}, "passed"),
        (MODEL, {"metrics": {"loss": float("nan")}}, "metrics.loss.float"),
    ],
)
def test_an_evaluate_argument_the_contract_refuses_raises_and_emits_nothing(
    emitter: Emitter,
    transport: FakeTransport,
    model_version: str,
    changes: dict[str, Any],
    argument: str,
) -> None:
    with pytest.raises(ArgumentError) as raised:
        emitter.evaluate(model_version, **(EVALUATE | changes))
    assert raised.value.arguments == (argument,)
    assert str(raised.value).startswith(f"evaluate(): argument {argument}: ")
    assert delivered(emitter, transport) == []


def test_a_refused_evaluation_inside_a_run_emits_no_evaluation(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, code=False) as run:
        with pytest.raises(ArgumentError, match="argument model_version"):
            run.evaluate("assistant@1.0.0", suite="mmlu", passed=True)
        run.conclusion = "evaluated nothing"
    kinds = [e.event_type for e in delivered(emitter, transport)]
    assert kinds == ["run.started", "run.completed"]


CHECKPOINT = "checkpoint:r-pre/2000"


def test_evaluate_checkpoint_emits_checkpoint_evaluated(
    emitter: Emitter, transport: FakeTransport
) -> None:
    evaluation = emitter.evaluate_checkpoint(
        CHECKPOINT,
        suite="eval-suite",
        suite_version="1",
        datasets=list(EVAL_DATA),
        metrics={"accuracy": 0.61},
        passed=True,
        evaluation_id=EVALUATION,
    )
    [event] = delivered(emitter, transport)
    assert event.event_type == "checkpoint.evaluated"
    assert event.subject == evaluation == f"evaluation:{EVALUATION}"
    assert payload(event) == {
        "evaluation_id": str(EVALUATION),
        "checkpoint": CHECKPOINT,
        "suite": "eval-suite",
        "suite_version": "1",
        "dataset_versions": list(EVAL_DATA),
        "run": None,
        "metrics": {"accuracy": 0.61},
        "passed": True,
    }


def test_a_checkpoint_evaluation_inside_a_run_is_done_by_that_run(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, code=False) as run:
        evaluation = run.evaluate_checkpoint(CHECKPOINT, suite="mmlu", passed=False)
    [_started, evaluated, _completed] = delivered(emitter, transport)
    assert (evaluated.event_type, evaluated.subject) == ("checkpoint.evaluated", evaluation)
    assert payload(evaluated)["run"] == run.subject
    assert payload(evaluated)["checkpoint"] == CHECKPOINT


@pytest.mark.parametrize(
    ("checkpoint", "changes", "argument"),
    [
        (MODEL, {}, "checkpoint"),  # a model version is not a checkpoint
        ("r-pre/2000", {}, "checkpoint"),
        (CHECKPOINT, {"datasets": [EVAL_DATA[0], "heldout@v2"]}, "datasets[1]"),
        (CHECKPOINT, {"passed": "perhaps"}, "passed"),
    ],
)
def test_an_evaluate_checkpoint_argument_the_contract_refuses_raises_and_emits_nothing(
    emitter: Emitter,
    transport: FakeTransport,
    checkpoint: str,
    changes: dict[str, Any],
    argument: str,
) -> None:
    with pytest.raises(ArgumentError) as raised:
        emitter.evaluate_checkpoint(checkpoint, **(EVALUATE | changes))
    assert raised.value.arguments == (argument,)
    assert str(raised.value).startswith(f"evaluate_checkpoint(): argument {argument}: ")
    assert delivered(emitter, transport) == []


# -- status changes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "to_status"),
    [
        (lambda e, **kw: e.approve_model(MODEL, **kw), "approved"),
        (lambda e, **kw: e.reject_model(MODEL, **kw), "rejected"),
        (lambda e, **kw: e.retire_model(MODEL, **kw), "retired"),
        (lambda e, **kw: e.set_model_status(MODEL, "approved", **kw), "approved"),
    ],
)
def test_a_status_change_emits_model_version_status_changed(
    emitter: Emitter, transport: FakeTransport, change: Callable[..., str], to_status: str
) -> None:
    subject = change(emitter, from_status="candidate", reason="reviewed by the eval board")
    [event] = delivered(emitter, transport)
    assert event.event_type == "model.version.status.changed"
    assert event.subject == subject == MODEL
    assert payload(event) == {
        "model_version": MODEL,
        "from_status": "candidate",
        "to_status": to_status,
        "reason": "reviewed by the eval board",
    }


def test_a_status_change_needs_no_from_status_nor_reason(
    emitter: Emitter, transport: FakeTransport
) -> None:
    emitter.set_model_status(MODEL, "delivered")
    [event] = delivered(emitter, transport)
    assert payload(event) == {
        "model_version": MODEL,
        "from_status": None,
        "to_status": "delivered",
        "reason": None,
    }


@pytest.mark.parametrize(
    ("change", "argument", "words"),
    [
        (lambda e: e.set_model_status(MODEL, "shipped"), "status", "'approved'"),
        (lambda e: e.approve_model(MODEL, from_status="retired"), "status", "cannot move"),
        (lambda e: e.retire_model(MODEL, from_status="gone"), "from_status", "'candidate'"),
        (lambda e: e.reject_model(MODEL, reason=""), "reason", "at least 1 character"),
        (lambda e: e.approve_model("model:other/assistant@1"), "model_version", "project="),
        (lambda e: e.approve_model(f"model:{PROJECT}/assistant"), "model_version", "@<version>"),
    ],
)
def test_a_status_argument_the_contract_refuses_raises_and_emits_nothing(
    emitter: Emitter,
    transport: FakeTransport,
    change: Callable[[Emitter], str],
    argument: str,
    words: str,
) -> None:
    with pytest.raises(ArgumentError) as raised:
        change(emitter)
    assert raised.value.arguments == (argument,)
    assert f"argument {argument}: " in str(raised.value)
    assert words in str(raised.value)
    assert delivered(emitter, transport) == []


def test_a_status_change_of_another_projects_version_goes_to_that_project(
    emitter: Emitter, transport: FakeTransport
) -> None:
    emitter.retire_model("model:other/assistant@1", project="other", reason="superseded")
    [event] = delivered(emitter, transport)
    assert (event.project, event.subject) == ("other", "model:other/assistant@1")


# -- runs stopped from outside ---------------------------------------------------------------


def test_abort_run_emits_run_aborted(emitter: Emitter, transport: FakeTransport) -> None:
    subject = emitter.abort_run("pretrain-7", reason="preempted by the scheduler", final_step=900)
    [event] = delivered(emitter, transport)
    assert event.event_type == "run.aborted"
    assert event.subject == subject == "run:pretrain-7"
    assert payload(event) == {
        "run_id": "pretrain-7",
        "reason": "preempted by the scheduler",
        "conclusion": None,
        "final_metrics": {},
        "final_step": 900,
    }


def test_an_abort_run_argument_the_contract_refuses_raises_and_emits_nothing(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with pytest.raises(ArgumentError) as raised:
        emitter.abort_run("pretrain-7", reason="", final_step=-1)
    assert raised.value.arguments == ("reason", "final_step")
    assert delivered(emitter, transport) == []


# -- the error --------------------------------------------------------------------------------


def test_argument_error_is_exported_and_is_a_client_and_value_error() -> None:
    assert "ArgumentError" in provgraph.client.__all__
    assert issubclass(ArgumentError, ClientError) and issubclass(ArgumentError, ValueError)
    error = ArgumentError("evaluate", [("suite", "required"), ("datasets[0]", "malformed")])
    assert error.arguments == ("suite", "datasets[0]")
    assert str(error) == "evaluate(): argument suite: required; argument datasets[0]: malformed"


# -- scaling up a pilot ----------------------------------------------------------------------


def test_a_scale_up_names_its_pilot_in_run_started_v2(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(run_id="pilot-1", environment=False, code=False) as pilot:
        pass
    with emitter.run(run_id="big-1", scaled_from=pilot, environment=False, code=False):
        pass
    with emitter.run(run_id="big-2", scaled_from="pilot-1", environment=False, code=False):
        pass
    started = [e for e in delivered(emitter, transport) if e.event_type == "run.started"]
    assert [(e.subject, e.schema_version) for e in started] == [
        ("run:pilot-1", 2),
        ("run:big-1", 2),
        ("run:big-2", 2),
    ]
    assert [payload(e)["scaled_from"] for e in started] == [None, "run:pilot-1", "run:pilot-1"]


@pytest.mark.parametrize(
    ("scaled_from", "reason"),
    [
        ("run:big-1", "cannot be its own pilot"),
        ("big-1", "cannot be its own pilot"),
        ("checkpoint:pilot-1/10", "scaled_from"),
        ("run:bad id", "scaled_from"),
    ],
)
def test_a_bad_pilot_is_refused_before_anything_is_emitted(
    emitter: Emitter, transport: FakeTransport, scaled_from: str, reason: str
) -> None:
    with pytest.raises(ArgumentError) as raised:
        emitter.run(run_id="big-1", scaled_from=scaled_from, environment=False, code=False)
    assert raised.value.arguments == ("scaled_from",)
    assert reason in str(raised.value)
    assert delivered(emitter, transport) == []
