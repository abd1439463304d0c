"""The launcher's failure paths: each gives a clear error and leaves nothing half-started."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from provgraph.infra import maven
from provgraph.infra.errors import FetchError, MissingToolError, PortInUseError
from provgraph.infra.launcher import Launcher
from provgraph.infra.process import ManagedProcess
from provgraph.infra.settings import InfraSettings


@pytest.fixture()
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def test_port_in_use_is_refused_and_nothing_starts(tmp_path: Path, busy_port: int) -> None:
    settings = InfraSettings(home=tmp_path / "home", kafka_port=busy_port)
    launcher = Launcher(settings, say=lambda _m: None)
    with pytest.raises(PortInUseError) as err:
        launcher.up()
    assert str(busy_port) in str(err.value)
    assert "PROVGRAPH_KAFKA_PORT" in str(err.value)
    assert not list((tmp_path / "home").rglob("*.pid"))


def test_missing_maven_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(MissingToolError, match="apt-get install maven"):
        maven.resolve("kafka", "4.1.1", tmp_path / "cache", mvn="/nonexistent/mvn")


def test_missing_java_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(MissingToolError, match="PROVGRAPH_JAVA"):
        maven.find_java("/nonexistent/java")


def test_failed_fetch_is_reported_and_leaves_no_partial_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with pytest.raises(FetchError, match=r"could not fetch kafka 0\.0\.0-missing"):
        maven.resolve("kafka", "0.0.0-missing", cache)
    assert not (cache / "kafka-0.0.0-missing").exists()


def test_managed_process_stops_exactly_what_it_started(tmp_path: Path) -> None:
    marker = f"provgraph-test-{os.getpid()}"
    proc = ManagedProcess("sleeper", tmp_path / "s.pid", tmp_path / "s.log", marker)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pid = proc.start([sys.executable, "-c", "import time, sys; time.sleep(60)", marker])
        assert proc.pid() == pid
        assert proc.stop(timeout_s=10)
        assert proc.pid() is None
        assert other.poll() is None, "an unrelated process must survive"
    finally:
        other.kill()
        other.wait()


def test_a_process_just_started_is_found_alive_not_taken_for_dead(tmp_path: Path) -> None:
    """Between fork and exec /proc shows the parent's cmdline, without the marker: `start`
    returns only after the exec, so a process that is only starting is never reported dead
    (which `services up` answered with "exited at startup" and an empty log)."""
    marker = f"provgraph-fresh-{os.getpid()}"
    for n in range(10):
        proc = ManagedProcess("fresh", tmp_path / f"{n}.pid", tmp_path / f"{n}.log", marker)
        pid = proc.start([sys.executable, "-c", "import time; time.sleep(60)", marker])
        try:
            assert proc.pid() == pid
        finally:
            proc.stop(timeout_s=10)


def test_stale_pid_file_of_another_process_is_ignored(tmp_path: Path) -> None:
    proc = ManagedProcess("x", tmp_path / "x.pid", tmp_path / "x.log", "provgraph-marker-absent")
    proc.pid_file.write_text(f"{os.getpid()}\n")  # alive, but not ours
    assert proc.pid() is None
    assert proc.stop() is False


def test_env_file_is_sourceable_and_private(tmp_path: Path) -> None:
    launcher = Launcher(InfraSettings(home=tmp_path / "home"), say=lambda _m: None)
    path = launcher.write_env_file()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    out = subprocess.run(
        ["bash", "-c", f"set -a; . {path}; echo $PROVGRAPH_NEO4J_URI $PROVGRAPH_INGEST_URL"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [launcher.settings.neo4j_uri, launcher.settings.ingest_url]
    assert launcher.settings.neo4j_uri.startswith("neo4j://127.0.0.1:")


def test_status_reports_what_runs_on_which_ports(private_kafka) -> None:  # type: ignore[no-untyped-def]
    """Status of a launcher whose Kafka runs and whose Neo4j does not (always this test's own
    servers, wherever the session's shared ones come from)."""
    launcher = Launcher(private_kafka.settings, say=lambda _m: None)
    status = {s.name: s for s in launcher.status()}
    assert status["kafka"].ready
    assert status["kafka"].pid == private_kafka.server.process.pid()
    assert status["kafka"].ports["broker"] == private_kafka.settings.kafka_port
    assert (status["neo4j"].pid, status["neo4j"].ready) == (None, False)
