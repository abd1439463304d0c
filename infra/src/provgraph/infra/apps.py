"""provgraph's own processes (ingest, projector, query), run in the background like the servers.

The launcher knows how to run a process, not which ones there are: the command line names them
(`AppSpec`s built from the modules they run), so that the launcher points at no service.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol

from provgraph.core.server import HTTP_PROTOCOL_OPTION
from provgraph.infra.envfile import read_env_file
from provgraph.infra.errors import PortInUseError, StartupError
from provgraph.infra.process import ManagedProcess, answers_ok, port_is_free, wait_until
from provgraph.infra.settings import InfraSettings

_PORTLESS_GRACE_S = 3.0

Probe = Callable[[int, float], str | None]
"""A deeper check of a running app, given its pid and start time (epoch seconds): why it is
degraded, or None when it does its work. The command line wires one for the projector."""


class AppEntry(Protocol):
    """A service's process entry module: uvicorn makes its HTTP app by calling its
    `create_app` (``--factory``)."""

    @property
    def __name__(self) -> str: ...

    @property
    def create_app(self) -> Callable[[], object]: ...


@dataclass(frozen=True)
class AppSpec:
    """One provgraph process: how to start it, how to know it again, how to tell it is up."""

    name: str
    # Its command line, built only to start it: naming what an app runs loads its modules,
    # which `services status` and `down` have no need of.
    command: Callable[[], tuple[str, ...]]
    # A piece of that command line: tells the app in /proc/<pid>/cmdline from a process that
    # got its pid later (see `ManagedProcess`).
    marker: str
    port: int | None = None
    health_path: str = "/healthz"
    # Serves the web explorer: started with PROVGRAPH_UI_DIR when the built folder exists.
    serves_ui: bool = False

    @property
    def argv(self) -> tuple[str, ...]:
        """The command line (building an HTTP app's imports its entry module)."""
        return self.command()


def http_app(
    name: str,
    find_entry: Callable[[], AppEntry],
    settings: InfraSettings,
    port: int,
    *,
    serves_ui: bool = False,
) -> AppSpec:
    """An HTTP app uvicorn serves on `port`, from the entry module `find_entry()` returns."""
    options = (
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

    def command() -> tuple[str, ...]:
        target = f"{find_entry().__name__}:create_app"  # the `AppEntry` member
        return (sys.executable, "-m", "uvicorn", target, *options)

    # The options name the port: the marker tells this app from its siblings too.
    return AppSpec(name, command, " ".join(options), port, serves_ui=serves_ui)


def module_app(name: str, module: ModuleType, *args: str) -> AppSpec:
    """A process without a port, ``python -m <module> <args>``: up while it runs."""
    run = ("-m", module.__name__, *args)
    return AppSpec(name, lambda: (sys.executable, *run), " ".join(run))


@dataclass(frozen=True)
class AppState:
    """What `services status` says of one app: healthy, degraded (running, answering, but not
    doing its work: `reason` says why), unhealthy (not answering) or stopped."""

    spec: AppSpec
    pid: int | None
    state: str
    reason: str = ""


class Apps:
    """Start, stop and report the processes `specs` describes, in that order (pid files under
    the state dir)."""

    def __init__(self, settings: InfraSettings, specs: Sequence[AppSpec]) -> None:
        self.settings = settings
        self.specs = list(specs)

    def process(self, spec: AppSpec) -> ManagedProcess:
        base = self.settings.state_dir / "apps"
        return ManagedProcess(
            spec.name, base / f"{spec.name}.pid", base / f"{spec.name}.log", spec.marker
        )

    def recorded_names(self) -> list[str]:
        """The names of the apps with a pid file, sorted, whether or not `specs` names them
        (what an earlier `up` with other settings started)."""
        return sorted(path.stem for path in (self.settings.state_dir / "apps").glob("*.pid"))

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
