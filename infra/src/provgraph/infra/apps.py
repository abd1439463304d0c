"""provgraph's own processes (ingest, projector, query), run in the background like the servers."""

from __future__ import annotations

import os
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from provgraph.infra.errors import PortInUseError, StartupError
from provgraph.infra.process import ManagedProcess, port_is_free, wait_until
from provgraph.infra.settings import InfraSettings

_PORTLESS_GRACE_S = 3.0


@dataclass(frozen=True)
class AppSpec:
    """One provgraph process: how to start it and how to tell it is up."""

    name: str
    argv: tuple[str, ...]
    port: int | None = None
    health_path: str = "/healthz"


def app_specs(settings: InfraSettings) -> list[AppSpec]:
    """Every provgraph process, in start order."""
    py = sys.executable

    def uvicorn(target: str, port: int) -> tuple[str, ...]:
        return (
            py,
            "-m",
            "uvicorn",
            target,
            "--factory",
            "--host",
            settings.host,
            "--port",
            str(port),
            "--no-access-log",
        )

    return [
        AppSpec(
            "ingest",
            uvicorn("provgraph.ingest.app:create_app", settings.ingest_port),
            settings.ingest_port,
        ),
        AppSpec("projector", (py, "-m", "provgraph.cli", "projector")),
        AppSpec(
            "query",
            uvicorn("provgraph.query.app:create_app", settings.query_port),
            settings.query_port,
        ),
    ]


class Apps:
    """Start, stop and report provgraph's own processes (pid files under the state dir)."""

    def __init__(self, settings: InfraSettings | None = None) -> None:
        self.settings = settings or InfraSettings()
        self.specs = app_specs(self.settings)

    def process(self, spec: AppSpec) -> ManagedProcess:
        base = self.settings.state_dir / "apps"
        marker = " ".join(spec.argv[1:4])  # e.g. "-m uvicorn provgraph.ingest.app:create_app"
        return ManagedProcess(
            spec.name, base / f"{spec.name}.pid", base / f"{spec.name}.log", marker
        )

    def up(self) -> list[str]:
        """Start every app that is not running; return the names now running."""
        running: list[str] = []
        started: list[ManagedProcess] = []
        try:
            for spec in self.specs:
                proc = self.process(spec)
                if proc.pid() is None:
                    self._start(spec, proc)
                    started.append(proc)
                running.append(spec.name)
        except BaseException:
            # Leave no half-started stack: stop what this call started, then report.
            for proc in reversed(started):
                proc.stop(20.0)
            raise
        return running

    def down(self) -> list[str]:
        """Stop the apps this launcher started; return the names that were running."""
        return [spec.name for spec in reversed(self.specs) if self.process(spec).stop(20.0)]

    def status(self) -> list[tuple[AppSpec, int | None, bool]]:
        """(spec, pid, healthy) for every app."""
        rows = []
        for spec in self.specs:
            pid = self.process(spec).pid()
            rows.append((spec, pid, pid is not None and self._healthy(spec)))
        return rows

    def _start(self, spec: AppSpec, proc: ManagedProcess) -> None:
        if spec.port is not None and not port_is_free(self.settings.host, spec.port):
            raise PortInUseError(
                f"{spec.name} port {self.settings.host}:{spec.port} is in use by another "
                f"process; stop it or set PROVGRAPH_{spec.name.upper()}_PORT."
            )
        proc.start(spec.argv, env=self._env())
        if not wait_until(lambda: self._up_or_dead(spec, proc), 60.0, interval_s=0.5):
            proc.stop(5.0)
            raise StartupError(f"{spec.name} did not become healthy in 60s:\n{proc.log_tail()}")
        if spec.port is None:
            # No health endpoint (the projector): it must at least survive its first seconds.
            wait_until(lambda: proc.pid() is None, _PORTLESS_GRACE_S)
        if proc.pid() is None:
            proc.stop(5.0)  # clears its pid file
            raise StartupError(f"{spec.name} exited at startup:\n{proc.log_tail()}")

    def _up_or_dead(self, spec: AppSpec, proc: ManagedProcess) -> bool:
        if proc.pid() is None:
            return True  # dead: reported by the caller
        return self._healthy(spec) if spec.port is not None else True

    def _healthy(self, spec: AppSpec) -> bool:
        if spec.port is None:
            return True
        url = f"http://{self.settings.host}:{spec.port}{spec.health_path}"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(read_env_file(self.settings.env_file))
        env.update(
            {
                "PROVGRAPH_INGEST_PORT": str(self.settings.ingest_port),
                "PROVGRAPH_QUERY_PORT": str(self.settings.query_port),
            }
        )
        return env


def read_env_file(path: Path) -> dict[str, str]:
    """The KEY=VALUE pairs of the connection file (empty when it does not exist)."""
    if not path.exists():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs if not key.startswith("#")}
