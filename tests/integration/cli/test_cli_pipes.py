"""Every command stops quietly when the reader of its output goes away, as Unix tools do.

`provgraph env-diff A B | head -3` reads three lines and leaves: the command must end there
with exit status 141 (128 + SIGPIPE, what a shell reports for `yes | head -1`), nothing on
stderr (no traceback, no "Exception ignored" from the interpreter's last flush). The outputs
here are far larger than a pipe holds (64 KiB), so the reader always leaves mid-output.

The commands run with Python's default buffered stdout, and once with PYTHONUNBUFFERED=1 (as
in many container images): unbuffered, the interpreter drops the rest of a write the pipe cut
short, and the reader gone shows at the next write.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from support.stories import story_event

from provgraph.cli.main import READER_GONE
from provgraph.infra.envfile import write_env_file
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

PROVGRAPH = Path(sys.executable).parent / "provgraph"
PACKAGES = 3000  # ~150 KB of env-diff rows: more than a pipe holds
PIPE_BYTES = 64 * 1024
T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


def _snapshot(project: str, key: str, major: int, minute: int) -> Any:
    packages = {f"package-{i:04d}": f"{major}.0.{i}" for i in range(PACKAGES)}
    payload = {"key": key, "packages": packages}
    return story_event(
        project, "environment.snapshot.recorded", payload, T0 + timedelta(minutes=minute)
    )


@pytest.fixture()
def environments(neo4j_driver: Driver, project: str) -> tuple[str, str]:
    """Two snapshots whose every package changed: env-diff prints a row for each."""
    events = [_snapshot(project, "old", 1, 0), _snapshot(project, "new", 2, 1)]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return f"environment:{project}/old", f"environment:{project}/new"


def _clean_env(**more: str) -> dict[str, str]:
    """This process's environment without provgraph's settings nor Python's buffering."""
    skip = ("PROVGRAPH_", "PYTHONUNBUFFERED")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(skip)}, **more}


@pytest.fixture()
def env(neo4j_endpoint: Any) -> dict[str, str]:
    return {
        **_clean_env(),
        "PROVGRAPH_NEO4J_URI": neo4j_endpoint.uri,
        "PROVGRAPH_NEO4J_USER": neo4j_endpoint.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j_endpoint.password,
    }


def _read_then_leave(
    argv: list[str], env: dict[str, str], lines: int
) -> tuple[list[str], int, str]:
    """Run `provgraph argv`, read `lines` lines of its stdout, close it, and wait: (the lines
    read, the exit status, all it wrote on stderr)."""
    with subprocess.Popen(
        [str(PROVGRAPH), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        read = [proc.stdout.readline().decode() for _ in range(lines)]
        proc.stdout.close()  # the reader goes away; the command is still writing
        err = proc.stderr.read().decode()
        return read, proc.wait(timeout=60), err


@pytest.mark.parametrize(
    ("json_flag", "unbuffered"),
    [([], False), (["--json"], False), ([], True)],
    ids=["table", "json", "table-unbuffered"],
)
def test_env_diff_stops_quietly_when_its_reader_leaves(
    environments: tuple[str, str], env: dict[str, str], json_flag: list[str], unbuffered: bool
) -> None:
    a, b = environments
    run_env = {**env, "PYTHONUNBUFFERED": "1"} if unbuffered else env
    read, status, err = _read_then_leave(["env-diff", a, b, *json_flag], run_env, 3)
    assert err == ""
    assert status == READER_GONE == 141
    first = read[0].strip()
    assert first == "{" if json_flag else first == f"{a} -> {b}"
    # Read whole, the same command prints far more than a pipe holds: the reader did leave
    # mid-output, and the command does work when it is read to the end.
    whole = subprocess.run(
        [str(PROVGRAPH), "env-diff", a, b, *json_flag], env=env, capture_output=True, timeout=60
    )
    assert whole.returncode == 0, whole.stderr
    assert len(whole.stdout) > 2 * PIPE_BYTES
    assert whole.stdout.decode().splitlines()[:3] == [line.rstrip("\n") for line in read]


def test_head_in_a_shell_sees_141_and_nothing_on_stderr(
    environments: tuple[str, str], env: dict[str, str]
) -> None:
    a, b = environments
    command = shlex.join([str(PROVGRAPH), "env-diff", a, b])
    script = f'{command} | head -3; echo "statuses ${{PIPESTATUS[*]}}" >&2'
    done = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stderr == "statuses 141 0\n"
    assert len(done.stdout.splitlines()) == 3


def _home(path: Path, values: dict[str, str]) -> dict[str, str]:
    write_env_file(path / "env", values)
    return _clean_env(PROVGRAPH_HOME=str(path))


def test_a_command_without_servers_stops_quietly_too(tmp_path: Path) -> None:
    """`provgraph env` reads only a file: long, it fails mid-output; short, it sits in stdout's
    buffer until the end, where the last flush finds the reader gone (before, the interpreter
    found it at exit: "Exception ignored ... BrokenPipeError")."""
    long = _home(tmp_path / "long", {f"PROVGRAPH_X_{i:05d}": "x" * 40 for i in range(3000)})
    read, status, err = _read_then_leave(["env"], long, 1)
    assert (read[0].startswith("#"), status, err) == (True, READER_GONE, "")
    short = _home(tmp_path / "short", {"PROVGRAPH_TOKEN": "pgt_x"})
    read, status, err = _read_then_leave(["env"], short, 0)  # gone before the first line
    assert (status, err) == (READER_GONE, "")
