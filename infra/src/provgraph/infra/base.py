"""The port every locally launched server implements, so the launcher treats them alike."""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib import resources
from pathlib import Path

from provgraph.infra.process import ManagedProcess
from provgraph.infra.settings import InfraSettings


class LocalServer(ABC):
    """A server run as a local process: prepared once, started detached, probed for readiness."""

    name: str

    def __init__(self, settings: InfraSettings) -> None:
        self.settings = settings
        self.dir = settings.state_dir / self.name
        self.process = ManagedProcess(
            name=self.name,
            pid_file=self.dir / f"{self.name}.pid",
            log_file=self.dir / "logs" / f"{self.name}.out",
            marker=self.marker(),
        )

    @abstractmethod
    def marker(self) -> str:
        """A string unique to this server's command line (guards against reused pids)."""

    @abstractmethod
    def ports(self) -> dict[str, int]:
        """The ports it listens on, by role."""

    @abstractmethod
    def prepare(self) -> list[str]:
        """Fetch, write config, initialise storage; return the argv to start it."""

    @abstractmethod
    def is_ready(self) -> bool:
        """True once it answers a real request (not merely an open port)."""

    def after_ready(self) -> None:  # noqa: B027 - an optional hook
        """Run once it is ready (e.g. set credentials); default: nothing."""

    def log_paths(self) -> list[Path]:
        """Where its logs are, for `provgraph infra logs` and error messages."""
        return [self.process.log_file]


def template(name: str) -> str:
    """A config template shipped in provgraph.infra/templates."""
    return resources.files("provgraph.infra").joinpath(f"templates/{name}").read_text()
