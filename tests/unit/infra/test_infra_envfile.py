"""The connection file: `export` lines with shell-quoted values, read back by one parser."""

from __future__ import annotations

import stat
from pathlib import Path

from provgraph.infra.envfile import parse_env, read_env_file, render_env, write_env_file
from provgraph.infra.launcher import Launcher
from provgraph.infra.settings import InfraSettings

AWKWARD = {
    "PROVGRAPH_PLAIN": "bolt://127.0.0.1:7687",
    "PROVGRAPH_SPACES": "two words",
    "PROVGRAPH_QUOTES": 'it\'s "quoted"',
    "PROVGRAPH_SHELL": "$HOME `id` #not-a-comment",
    "PROVGRAPH_EMPTY": "",
}


def test_every_line_is_an_export_and_reads_back_the_same() -> None:
    text = render_env(AWKWARD)
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(lines) == len(AWKWARD)
    assert all(line.startswith("export PROVGRAPH_") for line in lines)
    assert "export PROVGRAPH_SHELL='$HOME `id` #not-a-comment'" in lines
    assert parse_env(text) == AWKWARD


def test_plain_key_value_lines_are_read_too() -> None:
    text = "# a comment\n\nPROVGRAPH_A=1\n  export PROVGRAPH_B = 2\nPROVGRAPH_C=x#y\nnot a pair\n"
    assert parse_env(text) == {"PROVGRAPH_A": "1", "PROVGRAPH_B": "2", "PROVGRAPH_C": "x#y"}


def test_a_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_env_file(tmp_path / "absent") == {}


def test_the_file_is_private_even_when_it_was_not(tmp_path: Path) -> None:
    path = tmp_path / "home" / "env"
    path.parent.mkdir()
    path.write_text("PROVGRAPH_OLD=1\n")
    path.chmod(0o644)
    write_env_file(path, {"PROVGRAPH_NEW": "2"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_env_file(path) == {"PROVGRAPH_NEW": "2"}


def test_the_launcher_adds_the_admin_token_once_it_exists(tmp_path: Path) -> None:
    launcher = Launcher(InfraSettings(home=tmp_path / "home"), say=lambda _m: None)
    before = read_env_file(launcher.write_env_file())
    assert "PROVGRAPH_TOKEN" not in before
    assert before["PROVGRAPH_NEO4J_PASSWORD"] == launcher.neo4j.password()

    launcher.settings.admin_token_file.write_text("pgt_secret-token\n")
    after = read_env_file(launcher.write_env_file())
    assert after == {**before, "PROVGRAPH_TOKEN": "pgt_secret-token"}
    assert stat.S_IMODE(launcher.settings.env_file.stat().st_mode) == 0o600
