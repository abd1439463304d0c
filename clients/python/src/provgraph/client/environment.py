"""What a run executes in: Python, installed packages, git state, host and GPUs.

Every probe tolerates absence: no git, not a repository, no nvidia-smi, a package with a
version the contract cannot hold. A probe never raises and never waits long.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from provgraph.schemas.events.common import EXACT_VERSION_RE
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import CodeRef

PROBE_TIMEOUT_S = 5.0
_COMMIT_RE = re.compile(r"^[0-9a-f]{7,64}$")
FRAMEWORKS = ("torch", "tensorflow", "jax", "jaxlib", "transformers", "flax", "keras")
PARALLEL_LIBS = ("deepspeed", "megatron-core", "accelerate", "fairscale", "horovod", "mpi4py")
COMPUTE_PREFIXES = ("nvidia-", "triton", "cupy")


@dataclass(frozen=True)
class GpuInfo:
    """GPUs seen by nvidia-smi and their driver."""

    names: tuple[str, ...] = ()
    driver_version: str | None = None


@dataclass(frozen=True)
class Snapshot:
    """The probes' results, before they become an event payload."""

    python_version: str
    packages: dict[str, str] = field(default_factory=dict)
    hostname: str = ""
    gpu: GpuInfo = GpuInfo()
    code: CodeRef | None = None


def _run(argv: list[str], cwd: Path | None = None) -> str | None:
    """stdout of a command, or None when it is missing, fails or hangs."""
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def installed_packages() -> dict[str, str]:
    """Every installed distribution with an exact version, by normalised name."""
    packages: dict[str, str] = {}
    for dist in metadata.distributions():
        name, version = dist.metadata["Name"], dist.version
        if name and version and re.fullmatch(EXACT_VERSION_RE, version):
            packages[re.sub(r"[-_.]+", "-", name).lower()] = version
    return dict(sorted(packages.items()))


def strip_credentials(url: str) -> str:
    """A remote URL without user:password (tokens in https remotes must not leak)."""
    parts = urlsplit(url)
    if not parts.scheme or "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def git_code_ref(directory: Path | None = None, entrypoint: str | None = None) -> CodeRef | None:
    """Repository, commit, dirty flag and branch of the git work tree around `directory`."""
    if shutil.which("git") is None:
        return None
    top = _run(["git", "rev-parse", "--show-toplevel"], directory)
    commit = _run(["git", "rev-parse", "HEAD"], directory)
    if not top or not commit or not _COMMIT_RE.fullmatch(commit):
        return None
    status = _run(["git", "status", "--porcelain", "--untracked-files=no"], directory)
    remote = _run(["git", "remote", "get-url", "origin"], directory)
    branch = _run(["git", "rev-parse", "--abbrev-ref", "HEAD"], directory)
    return CodeRef(
        repo=strip_credentials(remote) if remote else top,
        commit=commit,
        dirty=status is None or status != "",
        branch=branch if branch and branch != "HEAD" else None,
        entrypoint=entrypoint,
    )


def gpu_info() -> GpuInfo:
    """GPU names and the driver version from nvidia-smi, when it is on PATH."""
    if shutil.which("nvidia-smi") is None:
        return GpuInfo()
    out = _run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    rows = [[c.strip() for c in line.split(",")] for line in (out or "").splitlines() if line]
    names = tuple(r[0] for r in rows if r and r[0])
    drivers = {r[1] for r in rows if len(r) > 1 and r[1]}
    return GpuInfo(names, drivers.pop() if len(drivers) == 1 else None)


def capture(code_dir: Path | None = None, entrypoint: str | None = None) -> Snapshot:
    """Run every probe."""
    return Snapshot(
        python_version=platform.python_version(),
        packages=installed_packages(),
        hostname=socket.gethostname(),
        gpu=gpu_info(),
        code=git_code_ref(code_dir, entrypoint),
    )


def _pick(packages: dict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    return {n: packages[n] for n in names if n in packages}


def _compute_libs(packages: dict[str, str]) -> dict[str, str]:
    return {n: v for n, v in packages.items() if n.startswith(COMPUTE_PREFIXES)}


def environment_key(contents: dict[str, object]) -> str:
    """A stable key from everything the snapshot records: a recorded environment is read-only
    (the same key with other contents is refused), so the key is a digest of its contents,
    and a host that differs in any recorded setting gets a key of its own."""
    text = json.dumps(contents, sort_keys=True, separators=(",", ":"), default=str)
    return f"pyenv-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def snapshot_payload(snapshot: Snapshot) -> EnvironmentSnapshotRecordedPayload:
    """The ``environment.snapshot.recorded`` payload of a snapshot."""
    system: dict[str, object] = {
        "hostname": snapshot.hostname,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
    }
    if snapshot.gpu.names:
        system["gpus"] = list(snapshot.gpu.names)
    contents: dict[str, object] = {
        "python_version": snapshot.python_version,
        "frameworks": _pick(snapshot.packages, FRAMEWORKS),
        "parallel_libs": _pick(snapshot.packages, PARALLEL_LIBS),
        "driver_version": snapshot.gpu.driver_version,
        "compute_libs": _compute_libs(snapshot.packages),
        "packages": snapshot.packages,
        "system": system,
    }
    return EnvironmentSnapshotRecordedPayload.model_validate(
        {"key": environment_key(contents), **contents}
    )
