"""The run context manager and its helpers, checked through the contract."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from client_fakes import PROJECT, FakeTransport

from provgraph.client import Emitter
from provgraph.client.environment import strip_credentials
from provgraph.schemas import Event, parse_event

CHECKSUM = "sha256:" + "ab" * 32


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


def by_type(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for event in events:
        out.setdefault(event.event_type, []).append(event)
    return out


def test_a_successful_run_emits_its_whole_lifecycle(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(
        experiment="exp-017",
        params={"lr": 3e-4, "schedule": {"kind": "cosine"}},
        inputs=[("dataset:client-tests/web@v3", "train"), "dataset:client-tests/held@v1"],
    ) as run:
        for step in range(1, 4):
            run.log_metrics(step, loss=1.0 / step, accuracy=0.5)
        checkpoint = run.checkpoint(3, "s3://bucket/ckpt/3", checksum=CHECKSUM, size_bytes=10)
        model = run.register_model("assistant", "1.0.0", checkpoint=checkpoint)
        run.final_metrics = {"loss": 0.33}
        run.conclusion = "cosine schedule converges"
    events = by_type(delivered(emitter, transport))

    [started] = events["run.started"]
    payload = started.payload.model_dump()
    assert payload["experiment"] == "experiment:client-tests/exp-017"
    assert [i["role"] for i in payload["inputs"]] == ["train", "train"]
    assert payload["params"]["lr"] == 3e-4
    [snapshot] = events["environment.snapshot.recorded"]
    assert payload["environment"] == snapshot.subject
    assert snapshot.payload.model_dump()["python_version"]
    assert "pydantic" in snapshot.payload.model_dump()["packages"]
    points = [p for e in events["run.metrics.logged"] for p in e.payload.model_dump()["points"]]
    assert len(points) == 6
    assert checkpoint == f"checkpoint:{run.run_id}/3"
    assert model == "model:client-tests/assistant@1.0.0"
    [completed] = events["run.completed"]
    done = completed.payload.model_dump()
    assert done["conclusion"] == "cosine schedule converges"
    assert (done["final_step"], done["final_metrics"]) == (3, {"loss": 0.33})
    run_events = [
        e for es in events.values() for e in es if e.event_type != "environment.snapshot.recorded"
    ]
    assert {e.correlation_id for e in run_events} == {run.correlation_id}


def test_a_failing_run_emits_run_failed_and_reraises(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with pytest.raises(ZeroDivisionError), emitter.run(environment=False) as run:
        run.log_metrics(7, loss=2.0)
        _ = 1 / 0
    events = by_type(delivered(emitter, transport))
    [failed] = events["run.failed"]
    payload = failed.payload.model_dump()
    assert payload["error"]["type"] == "ZeroDivisionError"
    assert "division by zero" in payload["error"]["message"]
    assert "1 / 0" in payload["error"]["traceback"]
    assert payload["conclusion"] is None  # the error is recorded; no conclusion is made up
    assert payload["final_step"] == 7
    assert "run.metrics.logged" in events
    assert "environment.snapshot.recorded" not in events


def test_a_completed_run_without_conclusion_carries_none(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, code=False):
        pass
    [completed] = by_type(delivered(emitter, transport))["run.completed"]
    assert completed.schema_version == 2
    assert completed.payload.model_dump()["conclusion"] is None


def test_a_keyboard_interrupt_aborts_the_run(emitter: Emitter, transport: FakeTransport) -> None:
    with pytest.raises(KeyboardInterrupt), emitter.run(environment=False):
        raise KeyboardInterrupt
    [aborted] = by_type(delivered(emitter, transport))["run.aborted"]
    assert "KeyboardInterrupt" in aborted.payload.model_dump()["reason"]


def test_metrics_leave_in_batches_and_skip_non_finite_values(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, metrics_batch=10) as run:
        for step in range(25):
            run.log_metrics(step, loss=float("nan") if step == 3 else 1.0)
    logged = by_type(delivered(emitter, transport))["run.metrics.logged"]
    sizes = [len(e.payload.model_dump()["points"]) for e in logged]
    assert sizes == [10, 10, 4]


def test_code_is_read_from_the_git_work_tree(
    emitter: Emitter, transport: FakeTransport, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "train.py").write_text("print(1)\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
    remote = "https://user:secret@example.com/org/trainer.git"
    subprocess.run([*git, "remote", "add", "origin", remote], check=True)
    (repo / "train.py").write_text("print(2)\n")
    with emitter.run(environment=False, code_dir=repo):
        pass
    [started] = by_type(delivered(emitter, transport))["run.started"]
    code = started.payload.model_dump()["code"]
    assert code["repo"] == "https://example.com/org/trainer.git"
    assert code["dirty"] is True
    assert len(code["commit"]) == 40


def test_outside_a_repository_the_run_has_no_code_ref(
    emitter: Emitter, transport: FakeTransport, tmp_path: Path
) -> None:
    with emitter.run(environment=False, code_dir=tmp_path):
        pass
    [started] = by_type(delivered(emitter, transport))["run.started"]
    assert started.payload.model_dump()["code"] is None


def test_credentials_are_stripped_from_remote_urls() -> None:
    assert strip_credentials("https://tok@github.com/a/b") == "https://github.com/a/b"
    assert strip_credentials("git@github.com:a/b.git") == "git@github.com:a/b.git"
