"""`Run.saving_checkpoint`: the save is timed and recorded as `save_seconds`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_fakes import PROJECT, FakeTransport

from provgraph.client import Emitter
from provgraph.client.checkpointing import CheckpointSave
from provgraph.schemas import parse_event

CHECKSUM = "sha256:" + "cd" * 32


@pytest.fixture()
def transport() -> FakeTransport:
    return FakeTransport()


@pytest.fixture()
def emitter(transport: FakeTransport, tmp_path: Path) -> Iterator[Emitter]:
    emitter = Emitter(transport, spool_dir=tmp_path / "spool", project=PROJECT, linger_s=0.01)
    yield emitter
    emitter.close(timeout=5)


class Ticks:
    """A clock that advances by the given steps, one per reading."""

    def __init__(self, *readings: float) -> None:
        self.readings = list(readings)

    def __call__(self) -> float:
        return self.readings.pop(0)


def test_the_block_is_timed_and_its_attributes_recorded() -> None:
    calls: list[tuple[int, str, dict[str, Any]]] = []

    def record(step: int, uri: str, **options: Any) -> str:
        calls.append((step, uri, options))
        return f"checkpoint:r/{step}"

    save = CheckpointSave(record, 200, "s3://b/200/", {"epoch": 1}, clock=Ticks(10.0, 52.5))
    with save as saved:
        saved.size_bytes = 1024
        saved.checksum = CHECKSUM
    assert calls == [
        (
            200,
            "s3://b/200/",
            {"save_seconds": 42.5, "checksum": CHECKSUM, "size_bytes": 1024, "epoch": 1},
        )
    ]
    assert (saved.save_seconds, saved.id) == (42.5, "checkpoint:r/200")


def test_a_failed_save_records_nothing() -> None:
    calls: list[int] = []

    def record(step: int, uri: str, **options: Any) -> str:
        calls.append(step)
        return "never"

    with pytest.raises(OSError), CheckpointSave(record, 1, "s3://b/1/", {}, clock=Ticks(0.0)):
        raise OSError("disk full")
    assert calls == []


def test_run_helper_emits_checkpoint_saved_with_save_seconds(
    emitter: Emitter, transport: FakeTransport
) -> None:
    with emitter.run(environment=False, code=False) as run:
        with run.saving_checkpoint(5, "s3://bucket/ckpt/5", format="torch") as saved:
            saved.size_bytes = 77
        run.conclusion = "saved"
    assert emitter.flush(timeout=10)
    [event] = [e for e in transport.events if e.event_type == "checkpoint.saved"]
    assert parse_event(event.to_json_bytes()) == event
    payload = event.payload.model_dump()
    assert payload["save_seconds"] is not None and payload["save_seconds"] >= 0.0
    assert (payload["size_bytes"], payload["format"], payload["step"]) == (77, "torch", 5)
    assert saved.id == f"checkpoint:{run.run_id}/5"
