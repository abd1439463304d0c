"""provgraph's own processes: a failed start leaves nothing of that start running."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from provgraph.infra.apps import Apps, AppSpec
from provgraph.infra.errors import StartupError
from provgraph.infra.settings import InfraSettings


def test_a_failed_start_stops_what_the_same_call_started(tmp_path: Path) -> None:
    sleeper = (sys.executable, "-c", "import time; time.sleep(120)", "provgraph-test-sleeper")
    failing = (sys.executable, "-c", "raise SystemExit(3)", "provgraph-test-failing")
    specs = [
        AppSpec("sleeper", lambda: sleeper, "provgraph-test-sleeper"),
        AppSpec("failing", lambda: failing, "provgraph-test-failing"),
    ]
    apps = Apps(InfraSettings(home=tmp_path / "home"), specs)
    with pytest.raises(StartupError, match="failing exited at startup"):
        apps.up()
    assert apps.process(apps.specs[0]).pid() is None
    assert not list((tmp_path / "home").rglob("*.pid"))
