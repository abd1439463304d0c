"""The connection file `.provgraph/env`: written once here, read back here.

It is a shell file of `export KEY=VALUE` lines (values shell-quoted), so that `source`,
`. file`, `set -a; . file; set +a` and `eval "$(provgraph env)"` all export the same
variables to every command started afterwards. Plain `KEY=VALUE` lines (an older file, or one
a test writes) are read back just the same.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

HEADER = (
    "# provgraph connection settings, written by `provgraph infra up` (mode 0600).\n"
    '# Load them with `source .provgraph/env` or `eval "$(provgraph env)"`.\n'
)
_EXPORT = "export "


def render_env(values: Mapping[str, str]) -> str:
    """The file's text: the header, then one `export KEY=VALUE` line per value."""
    lines = (f"{_EXPORT}{key}={shlex.quote(value)}\n" for key, value in values.items())
    return HEADER + "".join(lines)


def parse_env(text: str) -> dict[str, str]:
    """The variables of `text`: `export KEY=VALUE` or `KEY=VALUE` lines, values unquoted as a
    shell would; blank lines and comment lines are skipped."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix(_EXPORT).partition("=")
        words = shlex.split(value)
        values[key.strip()] = " ".join(words)
    return values


def read_env_file(path: Path) -> dict[str, str]:
    """The variables of the connection file at `path` (empty when it does not exist)."""
    if not path.exists():
        return {}
    return parse_env(path.read_text())


def write_env_file(path: Path, values: Mapping[str, str]) -> Path:
    """Write `values` to `path` as the connection file, mode 0600 (it holds secrets) even when
    the file existed before with another mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(render_env(values))
    return path
