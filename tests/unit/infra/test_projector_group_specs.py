"""`provgraph services up --projectors N`: N projector processes, each with its own name (pid
file, log, status line), in one consumer group; `status` and `down` find them all."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from provgraph.cli.services import app_specs, is_projector, projector_names, provgraph_apps
from provgraph.infra.apps import Apps
from provgraph.infra.settings import InfraSettings

pytestmark = pytest.mark.unit


def test_one_projector_keeps_its_name() -> None:
    assert projector_names(1) == ["projector"]
    names = [spec.name for spec in app_specs(InfraSettings(projectors=1))]
    assert names == ["ingest", "projector", "query"]


def test_n_projectors_run_the_same_command_under_their_own_names(tmp_path: Path) -> None:
    settings = InfraSettings(home=tmp_path, projectors=3)
    specs = app_specs(settings)
    assert [s.name for s in specs] == ["ingest", "projector", "projector-2", "projector-3", "query"]
    projectors = [s for s in specs if is_projector(s.name)]
    assert {s.argv for s in projectors} == {(sys.executable, "-m", "provgraph.cli", "projector")}
    apps = Apps(settings, specs)
    files = {apps.process(s).pid_file for s in projectors} | {
        apps.process(s).log_file for s in projectors
    }
    assert len(files) == 2 * len(projectors)


def test_more_projectors_named_by_an_earlier_up_are_kept_once() -> None:
    specs = app_specs(InfraSettings(projectors=2), ["projector-2", "projector-5"])
    assert [s.name for s in specs] == ["ingest", "projector", "projector-2", "projector-5", "query"]


@pytest.mark.parametrize("count", [0, 33, 100])
def test_a_projector_count_out_of_range_is_refused(count: int) -> None:
    with pytest.raises(ValueError, match="projectors"):
        InfraSettings(projectors=count)


def test_stale_pid_files_of_other_projectors_are_not_apps(tmp_path: Path) -> None:
    settings = InfraSettings(home=tmp_path, projectors=1)
    apps_dir = settings.state_dir / "apps"
    apps_dir.mkdir(parents=True)
    (apps_dir / "projector-4.pid").write_text("999999999\n")  # no such process
    assert Apps(settings, []).recorded_names() == ["projector-4"]
    assert [s.name for s in provgraph_apps(settings).specs] == ["ingest", "projector", "query"]
