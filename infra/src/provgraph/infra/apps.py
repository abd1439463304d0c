"""provgraph's own processes (ingest, projector, query), run in the background like the servers."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from provgraph.core.server import HTTP_PROTOCOL_OPTION
from provgraph.infra.envfile import read_env_file
from provgraph.infra.errors import PortInUseError, StartupError
from provgraph.infra.process import ManagedProcess, answers_ok, port_is_free, wait_until
from provgraph.infra.settings import InfraSettings

_PORTLESS_GRACE_S = 3.0

Probe = Callable[[int, float], str | None]
"""A deeper check of a running app, given its pid and start time (epoch seconds): why it is
degraded, or None when it does its work. The command line wires one for the projector."""


@dataclass(frozen=True)
class AppSpec:
    """One provgraph process: how to start it and how to tell it is up."""

    name: str
    argv: tuple[str, ...]
    port: int | None = None
    health_path: str = "/healthz"
    # Serves the web explorer: started with PROVGRAPH_UI_DIR when the built folder exists.
    serves_ui: bool = False


@dataclass(frozen=True)
class AppState:
    """What `services status` says of one app: healthy, degraded (running, answering, but not
    doing its work: `reason` says why), unhealthy (not answering) or stopped."""

    spec: AppSpec
    pid: int | None
    state: str
    reason: str = ""


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
            # A request uvicorn cannot parse is answered with the JSON error body too.
            "--http",
            HTTP_PROTOCOL_OPTION,
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
            serves_ui=True,
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

    def report(self, probes: Mapping[str, Probe] | None = None) -> list[AppState]:
        """The state of every app; `probes` (by app name) check the running ones further."""
        return [self._state(spec, (probes or {}).get(spec.name)) for spec in self.specs]

    def _state(self, spec: AppSpec, probe: Probe | None) -> AppState:
        proc = self.process(spec)
        pid = proc.pid()
        if pid is None:
            return AppState(spec, None, "stopped")
        if not self._healthy(spec):
            return AppState(spec, pid, "unhealthy", f"no answer on {spec.health_path}")
        try:
            reason = probe(pid, proc.pid_file.stat().st_mtime) if probe else None
        except Exception as exc:  # a check that fails says so; it never hides the others
            reason = f"health check failed: {exc}"
        return AppState(spec, pid, "degraded" if reason else "healthy", reason or "")

    def _start(self, spec: AppSpec, proc: ManagedProcess) -> None:
        if spec.port is not None and not port_is_free(self.settings.host, spec.port):
            raise PortInUseError(
                f"{spec.name} port {self.settings.host}:{spec.port} is in use by another "
                f"process; stop it or set PROVGRAPH_{spec.name.upper()}_PORT."
            )
        proc.start(spec.argv, env=self.app_env(spec))
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
        return answers_ok(f"http://{self.settings.host}:{spec.port}{spec.health_path}")

    def app_env(self, spec: AppSpec) -> dict[str, str]:
        """The environment `spec` starts with: `env()`, and the built explorer's folder for the
        app that serves it (looked for at start: `make up` builds it just before)."""
        env = self.env()
        if spec.serves_ui and self.settings.ui_dir.is_dir():
            env["PROVGRAPH_UI_DIR"] = str(self.settings.ui_dir.resolve())
        return env

    def env(self) -> dict[str, str]:
        """The environment the apps start with: this one, the connection file, the ports."""
        env = dict(os.environ)
        env.update(read_env_file(self.settings.env_file))
        env.update(
            {
                "PROVGRAPH_INGEST_PORT": str(self.settings.ingest_port),
                "PROVGRAPH_QUERY_PORT": str(self.settings.query_port),
            }
        )
        return env
