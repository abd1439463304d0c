"""The `provgraph` command in a plain bash, with the connection file sourced or not at all.

The shell starts without any PROVGRAPH_* variable: a command works only if the file exports
them, and without them (or with a wrong password) it says which setting is missing, in one
line, with exit code 2.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.infra.envfile import write_env_file
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

PROVGRAPH = Path(sys.executable).parent / "provgraph"


@pytest.fixture()
def demo(neo4j_driver: Driver, project: str) -> str:
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(project)])
    return project


@pytest.fixture()
def home(tmp_path: Path, endpoints: Any) -> Path:
    """A state dir whose connection file points at the running stack."""
    neo4j = endpoints.neo4j
    values = {
        "PROVGRAPH_KAFKA_BOOTSTRAP": endpoints.kafka_bootstrap,
        "PROVGRAPH_NEO4J_URI": neo4j.uri,
        "PROVGRAPH_NEO4J_USER": neo4j.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j.password,
    }
    write_env_file(tmp_path / "env", values)
    return tmp_path


def _bash(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_")}
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _trace(demo: str) -> str:
    return f"{shlex.quote(str(PROVGRAPH))} trace dataset:{demo}/instruct@v1-clean --depth 1"


def _assert_one_line_naming(done: subprocess.CompletedProcess[str], setting: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("provgraph: ") and setting in line


def test_a_command_works_in_a_shell_that_sourced_the_file(home: Path, demo: str) -> None:
    done = _bash(f"source ./env && {_trace(demo)}", home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        f"DatasetVersion dataset:{demo}/instruct@v1-clean (instruct v1-clean)"
    )


def test_eval_of_provgraph_env_works_the_same(home: Path, demo: str) -> None:
    done = _bash(f'eval "$({PROVGRAPH} env)" && {_trace(demo)}', home, PROVGRAPH_HOME=str(home))
    assert done.returncode == 0, done.stderr
    assert f"dataset:{demo}/instruct@v1-clean" in done.stdout


def test_without_the_file_the_command_names_the_missing_password(home: Path, demo: str) -> None:
    _assert_one_line_naming(_bash(_trace(demo), home), "PROVGRAPH_NEO4J_PASSWORD")


def test_a_wrong_password_is_one_line_naming_the_setting(home: Path, demo: str) -> None:
    script = f"source ./env && PROVGRAPH_NEO4J_PASSWORD=wrong {_trace(demo)}"
    done = _bash(script, home)
    _assert_one_line_naming(done, "PROVGRAPH_NEO4J_PASSWORD")
    assert "refused user 'neo4j'" in done.stderr


# Neo4j locks a user out for a few seconds after three wrong passwords in a row, which would
# stop every other test using the stack: these log in as a user that does not exist.
@pytest.mark.parametrize("command", ["verify --project {project}", "graph-hash", "replay"])
def test_every_neo4j_command_refused_a_login_says_so_in_one_line(
    command: str, home: Path, demo: str
) -> None:
    wrong = "PROVGRAPH_NEO4J_USER=t-cli-nobody PROVGRAPH_NEO4J_PASSWORD=wrong"
    done = _bash(f"source ./env && {wrong} {PROVGRAPH} {command.format(project=demo)}", home)
    _assert_one_line_naming(done, "PROVGRAPH_NEO4J_PASSWORD")
    assert "refused user 't-cli-nobody'" in done.stderr


def test_an_unreachable_neo4j_is_one_line_naming_the_uri(home: Path, demo: str) -> None:
    script = f"source ./env && PROVGRAPH_NEO4J_URI=bolt://127.0.0.1:9 {_trace(demo)}"
    done = _bash(script, home)
    _assert_one_line_naming(done, "PROVGRAPH_NEO4J_URI")
    assert "cannot reach Neo4j at bolt://127.0.0.1:9" in done.stderr
