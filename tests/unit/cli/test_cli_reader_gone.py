"""`main` when the reader of stdout goes away: the command stops with 141, nothing on stderr,
and the interpreter's last flush writes nowhere; a broken pipe that is not stdout's stays a
failure. stdout here is an in-process pipe (the real pipes are in tests/integration/cli)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from provgraph.cli.main import main
from provgraph.infra.envfile import write_env_file

cli = sys.modules[main.__module__]  # the module (the package's `main` is the function)


@pytest.fixture()
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):  # closed by the test
            os.close(fd)


def _stdout_on(fd: int) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "w", closefd=False)))


def test_a_pipe_is_closed_once_its_reader_is(pipe: tuple[int, int]) -> None:
    read, write = pipe
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", _stdout_on(write))
        assert not cli._stdout_closed()
        os.close(read)
        assert cli._stdout_closed()


def test_a_command_whose_reader_left_returns_141_and_leaves_nothing_to_flush(
    pipe: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, write = pipe
    monkeypatch.setenv("PROVGRAPH_HOME", str(tmp_path))
    write_env_file(tmp_path / "env", {"PROVGRAPH_TOKEN": "pgt_x"})  # short: it stays buffered
    stdout = _stdout_on(write)
    monkeypatch.setattr("sys.stdout", stdout)
    os.close(read)
    assert main(["env"]) == cli.READER_GONE == 141
    stdout.write("what a later flush finds\n")
    stdout.flush()  # stdout's descriptor is the null device now: no second BrokenPipeError


def test_a_broken_pipe_that_is_not_stdouts_stays_a_failure(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, write = pipe
    monkeypatch.setattr("sys.stdout", _stdout_on(write))  # its reader is still there

    def broken(argv: Sequence[str] | None) -> int:
        raise BrokenPipeError(32, "Broken pipe (a socket's)")

    monkeypatch.setattr(cli, "_run", broken)
    with pytest.raises(BrokenPipeError, match="a socket's"):
        main([])


def test_a_stdout_without_a_descriptor_is_taken_for_the_broken_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdout", io.StringIO())  # as under a capture: no fileno

    def broken(argv: Sequence[str] | None) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "_run", broken)
    assert main([]) == cli.READER_GONE
