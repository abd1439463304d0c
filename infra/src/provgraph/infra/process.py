"""Background processes tracked by pid files: start detached, find alive, stop exactly them."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ManagedProcess:
    """A process the launcher started: its name, pid file, log file and a cmdline marker.

    The marker (a string that must appear in /proc/<pid>/cmdline) guards against a stale
    pid file whose pid was reused by an unrelated process.
    """

    name: str
    pid_file: Path
    log_file: Path
    marker: str

    def pid(self) -> int | None:
        """The pid when the process from the pid file is alive and is ours, else None."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _is_ours(pid, self.marker) else None

    def start(
        self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> int:
        """Start argv detached (own session), output to the log file, and record its pid."""
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("ab") as log:
            proc = subprocess.Popen(
                list(argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
            )
        self.pid_file.write_text(f"{proc.pid}\n")
        # Until the child has exec'd, /proc shows the parent's cmdline without the marker, and
        # `pid()` would call a process that is only starting dead: wait for the exec.
        wait_until(lambda: proc.poll() is not None or _is_ours(proc.pid, self.marker), 30.0, 0.01)
        return proc.pid

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop the process (SIGTERM, then SIGKILL after timeout_s). True when one was running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        _signal_group(pid, signal.SIGTERM)
        if not wait_until(lambda: not _alive(pid), timeout_s):
            _signal_group(pid, signal.SIGKILL)
            wait_until(lambda: not _alive(pid), 10.0)
        self.pid_file.unlink(missing_ok=True)
        return True

    def log_tail(self, lines: int = 25) -> str:
        """The last lines of the log file, for error messages."""
        return tail(self.log_file, lines)


def tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def wait_until(predicate: Callable[[], bool], timeout_s: float, interval_s: float = 0.25) -> bool:
    """Poll predicate() until it is true or timeout_s passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)


def port_is_free(host: str, port: int) -> bool:
    """True when nothing listens on host:port (a bind succeeds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def answers_ok(url: str, timeout_s: float = 2.0) -> bool:
    """Whether `url` answers 200 (an app's health endpoint); any failure to connect is a no."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def port_accepts(host: str, port: int, timeout_s: float = 0.5) -> bool:
    """True when a TCP connection to host:port succeeds."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours is dead for our purposes.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[-1].split()[0] == "Z":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            return False
    return True


def _is_ours(pid: int, marker: str) -> bool:
    if not _alive(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return False
    return marker.encode() in cmdline


def _signal_group(pid: int, sig: signal.Signals) -> None:
    # Each managed process leads its own session; signal the group so children go too.
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
