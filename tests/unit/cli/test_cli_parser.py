"""The command line's parser, `provgraph env`, and main's one-line answer to a known failure."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from provgraph.cli import main
from provgraph.cli.main import build_parser
from provgraph.infra.envfile import write_env_file


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command (a parser without sub-commands), with the words that reach it."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        yield path, parser
    for group in groups:
        for name, child in group.choices.items():
            yield from _commands(child, (*path, name))


def _positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings]


def test_every_positional_argument_of_every_command_says_what_it_is() -> None:
    commands = dict(_commands(build_parser()))
    assert {("trace",), ("diff",), ("env",), ("infra", "env")} <= set(commands)
    missing = [
        f"{' '.join(path)} {action.dest}"
        for path, parser in commands.items()
        for action in _positionals(parser)
        if not action.help
    ]
    assert missing == []


@pytest.mark.parametrize("command", ["trace", "reproduce", "diff", "whois", "compare"])
def test_ids_and_paths_come_with_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = dict(_commands(build_parser()))[(command,)]
    helps = [action.help or "" for action in _positionals(parser)]
    assert helps and all("e.g. " in text for text in helps)
    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = "".join(capsys.readouterr().out.split())  # argparse wraps lines, even at a "-"
    assert all("".join(text.split()) in shown for text in helps)


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PROVGRAPH_HOME", str(tmp_path))
    return tmp_path / "env"


@pytest.mark.parametrize("argv", [["env"], ["infra", "env"]])
def test_env_prints_the_connection_file_as_it_is(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_env_file(_home(tmp_path, monkeypatch), {"PROVGRAPH_TOKEN": "pgt_x y"})
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out == path.read_text()
    assert "export PROVGRAPH_TOKEN='pgt_x y'\n" in out


def test_env_without_a_file_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _home(tmp_path, monkeypatch)
    assert main(["env"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        captured.err
        == f"provgraph: no connection file {path}: run `make up` (or `provgraph infra up`)\n"
    )
